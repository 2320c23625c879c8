package provider

import (
	"fmt"
	"net/http"
	"regexp"
	"testing"

	"github.com/domain-service/terraform-provider-domainservice/internal/client"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
)

func recordConfig(domain, content string, ttl int) string {
	return fmt.Sprintf(`
resource "domainservice_dns_record" "www" {
  domain  = %q
  type    = "CNAME"
  name    = "www"
  content = %q
  ttl     = %d
}

resource "domainservice_dns_record" "mail" {
  domain   = %q
  type     = "MX"
  name     = "@"
  content  = "Mail.Example.NET."
  priority = 10
}
`, domain, content, ttl, domain)
}

func TestAccDNSRecord(t *testing.T) {
	domain := registeredDomain(t, "rec")
	var id string
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { preCheck(t) },
		ProtoV6ProviderFactories: providerFactories,
		CheckDestroy: func(s *terraform.State) error {
			records := decode[client.Page[client.DNSRecord]](t, call(t, http.MethodGet, api(t).OrgPath("domains", domain, "records"), nil))
			if len(records.Data) != 0 {
				t.Errorf("records left after destroy: %+v", records.Data)
			}
			return nil
		},
		Steps: []resource.TestStep{
			{
				// The MX is written as people write it; the service stores it normalised, and the plan stays empty.
				Config: recordConfig(domain, "edge.example.net", 300),
				Check: resource.ComposeTestCheckFunc(
					resource.TestMatchResourceAttr("domainservice_dns_record.www", "id", regexp.MustCompile(`^rec_`)),
					resource.TestCheckResourceAttr("domainservice_dns_record.mail", "content", "Mail.Example.NET."),
					func(s *terraform.State) error {
						id = s.RootModule().Resources["domainservice_dns_record.www"].Primary.ID
						return nil
					},
				),
			},
			{
				ResourceName: "domainservice_dns_record.www", ImportState: true, ImportStateVerify: true,
				ImportStateIdFunc: func(*terraform.State) (string, error) { return domain + "/" + id, nil },
			},
			{
				Config: recordConfig(domain, "edge2.example.net", 600),
				Check: resource.ComposeTestCheckFunc(
					resource.TestCheckResourceAttr("domainservice_dns_record.www", "content", "edge2.example.net"),
					resource.TestCheckResourceAttr("domainservice_dns_record.www", "ttl", "600"),
					resource.TestCheckResourceAttr("domainservice_dns_record.www", "version", "2"),
					func(s *terraform.State) error {
						if got := s.RootModule().Resources["domainservice_dns_record.www"].Primary.ID; got != id {
							return fmt.Errorf("changed in place expected, got a new record %s (was %s)", got, id)
						}
						return nil
					},
				),
			},
			{
				// Changed in the dashboard: the next plan puts it back.
				PreConfig: func() {
					call(t, http.MethodPatch, api(t).OrgPath("domains", domain, "records", id), map[string]any{"content": "elsewhere.example.org"})
				},
				Config:             recordConfig(domain, "edge2.example.net", 600),
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
			},
			{
				Config: recordConfig(domain, "edge2.example.net", 600),
				Check: func(s *terraform.State) error {
					got := decode[client.DNSRecord](t, call(t, http.MethodGet, api(t).OrgPath("domains", domain, "records", id), nil))
					if got.Content != "edge2.example.net" {
						return fmt.Errorf("apply did not put the record back: %q", got.Content)
					}
					return nil
				},
			},
		},
	})
}
