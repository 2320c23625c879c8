package provider

import (
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/domain-service/terraform-provider-domainservice/internal/client"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
)

func zoneConfig(domain string, records ...string) string {
	return fmt.Sprintf(`
resource "domainservice_dns_zone_records" "zone" {
  domain  = %q
  records = [
    %s
  ]
}
`, domain, strings.Join(records, ",\n    "))
}

const (
	apexA   = `{ type = "A", name = "@", content = "192.0.2.10" }`
	wwwName = `{ type = "CNAME", name = "www", content = "example.net." }`
	mx      = `{ type = "MX", name = "@", content = "mail.example.net", priority = 10 }`
	spf     = `{ type = "TXT", name = "@", content = "v=spf1 include:_spf.example.net -all", ttl = 300 }`
	caa     = `{ type = "CAA", name = "@", content = "0 issue \"letsencrypt.org\"" }`
	srv     = `{ type = "SRV", name = "_sip._tcp", content = "5 5060 sip.example.net", priority = 10 }`
	v6      = `{ type = "AAAA", name = "@", content = "2001:DB8:0:0::10" }`
)

func zoneRecords(t *testing.T, domain string) []client.DNSRecord {
	return client.Must(client.ListAll(t.Context(), api(t), api(t).OrgPath("domains", domain, "records"), func(client.DNSRecord) bool { return false }))
}

// The records after the update, written as the service stores them (an import reads them so),
// In the export's order (apex first, then by name and type), which an import reads.
var updatedZone = []string{strings.Replace(apexA, "192.0.2.10", "192.0.2.11", 1), caa, mx, spf, srv, strings.Replace(wwwName, "example.net.", "example.net", 1)}

func TestAccDNSZoneRecords(t *testing.T) {
	domain := registeredDomain(t, "zone")
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { preCheck(t) },
		ProtoV6ProviderFactories: providerFactories,
		CheckDestroy: func(s *terraform.State) error {
			if left := zoneRecords(t, domain); len(left) != 0 {
				t.Errorf("records left after destroy: %+v", left)
			}
			return nil
		},
		Steps: []resource.TestStep{
			{
				// Spellings the service normalises (a trailing dot, an IPv6 address written long) plan nothing more.
				Config: zoneConfig(domain, apexA, wwwName, mx, spf, caa, v6),
				Check: func(s *terraform.State) error {
					if n := len(zoneRecords(t, domain)); n != 6 {
						return fmt.Errorf("the zone has %d records, want 6", n)
					}
					return nil
				},
			},
			{
				// One record changed, one added, one removed: applied in one import.
				Config: zoneConfig(domain, updatedZone...),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("domainservice_dns_zone_records.zone", plancheck.ResourceActionUpdate),
				}},
				Check: func(s *terraform.State) error {
					records := zoneRecords(t, domain)
					var contents []string
					for _, r := range records {
						contents = append(contents, r.Type+" "+r.Content)
					}
					joined := strings.Join(contents, "|")
					if len(records) != 6 || !strings.Contains(joined, "A 192.0.2.11") || strings.Contains(joined, "AAAA") || !strings.Contains(joined, "SRV 5 5060 sip.example.net") {
						return fmt.Errorf("zone after update: %s", joined)
					}
					return nil
				},
			},
			{ResourceName: "domainservice_dns_zone_records.zone", ImportState: true, ImportStateVerify: true, ImportStateId: domain},
			{
				// A record added and one changed in the dashboard: the next plan removes the one and puts
				// the other back, since this resource owns the zone.
				PreConfig: func() {
					call(t, http.MethodPost, api(t).OrgPath("domains", domain, "records"), map[string]any{"type": "TXT", "name": "dashboard", "content": "added by hand"})
					for _, r := range zoneRecords(t, domain) {
						if r.Type == "A" {
							call(t, http.MethodPatch, api(t).OrgPath("domains", domain, "records", r.ID), map[string]any{"content": "203.0.113.7"})
						}
					}
				},
				Config:             zoneConfig(domain, updatedZone...),
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
			},
			{
				Config: zoneConfig(domain, updatedZone...),
				Check: func(s *terraform.State) error {
					for _, r := range zoneRecords(t, domain) {
						if r.Name == "dashboard" || (r.Type == "A" && r.Content != "192.0.2.11") {
							return fmt.Errorf("apply left %s %s %s", r.Type, r.Name, r.Content)
						}
					}
					return nil
				},
			},
			{
				// A record the service refuses fails the plan, named.
				Config:      zoneConfig(domain, `{ type = "A", name = "bad", content = "not-an-address" }`),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`record A bad "not-an-address"`),
			},
		},
	})
}

// A zone of 2,000 records plans in a bounded number of requests: the provider reads the zone in
// one export, not one request per record.
func TestAccDNSZoneRecordsLargeZonePlan(t *testing.T) {
	domain := registeredDomain(t, "big")
	proxy := newCountingProxy(t)
	config := fmt.Sprintf(`
provider "domainservice" {
  base_url = %q
}

resource "domainservice_dns_zone_records" "zone" {
  domain  = %q
  records = flatten([for a in range(40) : [for b in range(50) : { type = "A", name = "host-${a}-${b}", content = "198.51.100.${b + 1}" }]])
}
`, proxy.URL, domain)
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { preCheck(t) },
		ProtoV6ProviderFactories: providerFactories,
		Steps: []resource.TestStep{
			{
				Config: config,
				Check: func(s *terraform.State) error {
					if n := len(zoneRecords(t, domain)); n != 2000 {
						return fmt.Errorf("the zone has %d records, want 2000", n)
					}
					return nil
				},
			},
			{PreConfig: func() { proxy.reset() }, Config: config, PlanOnly: true},
			{
				// The requests of the plan-only step above (one refresh and plan) are counted before
				// this one runs; this one removes the records (the configuration no longer has them).
				PreConfig: func() {
					requests := proxy.reset()
					t.Logf("a refresh and plan of a 2,000-record zone: %d API request(s)", requests)
					if requests == 0 || requests > 2 {
						t.Errorf("a plan of a 2,000-record zone made %d API requests; want 1 or 2", requests)
					}
				},
				Config: fmt.Sprintf("provider \"domainservice\" {\n  base_url = %q\n}\n", proxy.URL),
				Check: func(s *terraform.State) error {
					if n := len(zoneRecords(t, domain)); n != 0 {
						return fmt.Errorf("%d records left once the resource left the configuration", n)
					}
					return nil
				},
			},
		},
	})
}
