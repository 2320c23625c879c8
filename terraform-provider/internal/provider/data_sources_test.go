package provider

import (
	"fmt"
	"net/http"
	"os"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
)

func TestAccDataSources(t *testing.T) {
	domain := registeredDomain(t, "data")
	call(t, http.MethodPost, api(t).OrgPath("domains", domain, "records"), map[string]any{"type": "MX", "name": "@", "content": "mail.example.net", "priority": 10})
	call(t, http.MethodPost, api(t).OrgPath("domains", domain, "dnssec"), nil)
	waitForDNSSEC(t, domain, "active")
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { preCheck(t) },
		ProtoV6ProviderFactories: providerFactories,
		Steps: []resource.TestStep{{
			Config: fmt.Sprintf(`
data "domainservice_organization" "this" {}
data "domainservice_availability" "free" { name = %q }
data "domainservice_availability" "taken" { name = "gone-taken.com" }
data "domainservice_domain" "site" { name = %q }
data "domainservice_zone" "site" { domain = %q }
data "domainservice_dnssec_ds" "site" { domain = %q }
`, uniqueName("free"), domain, domain, domain),
			Check: resource.ComposeTestCheckFunc(
				resource.TestCheckResourceAttr("data.domainservice_organization.this", "id", os.Getenv(EnvOrg)),
				resource.TestCheckResourceAttr("data.domainservice_availability.free", "available", "true"),
				resource.TestCheckResourceAttr("data.domainservice_availability.free", "price", fmt.Sprint(comPrice)),
				resource.TestCheckResourceAttr("data.domainservice_availability.taken", "available", "false"),
				resource.TestCheckResourceAttr("data.domainservice_domain.site", "status", "active"),
				resource.TestCheckResourceAttr("data.domainservice_zone.site", "records.#", "1"),
				resource.TestCheckResourceAttr("data.domainservice_zone.site", "records.0.type", "MX"),
				resource.TestCheckResourceAttr("data.domainservice_zone.site", "records.0.content", "mail.example.net"),
				resource.TestCheckResourceAttr("data.domainservice_zone.site", "records.0.priority", "10"),
				resource.TestMatchResourceAttr("data.domainservice_zone.site", "zone_file", regexp.MustCompile(`(?m)^@ \d+ IN SOA `)),
				resource.TestCheckResourceAttr("data.domainservice_dnssec_ds.site", "status", "active"),
				resource.TestMatchResourceAttr("data.domainservice_dnssec_ds.site", "ds_records.0.digest", regexp.MustCompile(`^[0-9a-f]{64}$`)),
			),
		}},
	})
}
