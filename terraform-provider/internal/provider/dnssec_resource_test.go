package provider

import (
	"fmt"
	"net/http"
	"regexp"
	"testing"
	"time"

	"github.com/domain-service/terraform-provider-domainservice/internal/client"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
)

func dnssecConfig(domain string) string {
	return fmt.Sprintf(`
resource "domainservice_dnssec" "zone" {
  domain = %q
}
`, domain)
}

func dnssecStatus(t *testing.T, domain string) string {
	return decode[client.DNSSEC](t, call(t, http.MethodGet, api(t).OrgPath("domains", domain, "dnssec"), nil)).Status
}

// waitForDNSSEC polls until the status is one of want (test mode's removal takes two seconds).
func waitForDNSSEC(t *testing.T, domain string, want ...string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		status := dnssecStatus(t, domain)
		for _, w := range want {
			if status == w {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("DNSSEC of %s still %s, want %v", domain, status, want)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func TestAccDNSSEC(t *testing.T) {
	domain := registeredDomain(t, "sec")
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { preCheck(t) },
		ProtoV6ProviderFactories: providerFactories,
		CheckDestroy: func(s *terraform.State) error {
			if status := dnssecStatus(t, domain); status != "removing" && status != "off" {
				t.Errorf("DNSSEC of %s is %s after destroy", domain, status)
			}
			return nil
		},
		Steps: []resource.TestStep{
			{
				Config: dnssecConfig(domain),
				Check: resource.ComposeTestCheckFunc(
					resource.TestCheckResourceAttr("domainservice_dnssec.zone", "status", "active"),
					resource.TestCheckResourceAttr("domainservice_dnssec.zone", "ds_records.0.algorithm", "13"),
					resource.TestCheckResourceAttr("domainservice_dnssec.zone", "ds_records.0.digest_type", "2"),
					resource.TestMatchResourceAttr("domainservice_dnssec.zone", "ds_records.0.digest", regexp.MustCompile(`^[0-9a-f]{64}$`)),
					resource.TestMatchResourceAttr("domainservice_dnssec.zone", "dnskey", regexp.MustCompile(`^257 3 13 `)),
				),
			},
			{ResourceName: "domainservice_dnssec.zone", ImportState: true, ImportStateVerify: true, ImportStateId: domain},
			{
				// Turned off in the dashboard: the next plan signs the zone again.
				PreConfig: func() {
					call(t, http.MethodDelete, api(t).OrgPath("domains", domain, "dnssec"), nil)
					waitForDNSSEC(t, domain, "off")
				},
				Config:             dnssecConfig(domain),
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
			},
			{
				Config: dnssecConfig(domain),
				Check:  resource.TestCheckResourceAttr("domainservice_dnssec.zone", "status", "active"),
			},
		},
	})
}
