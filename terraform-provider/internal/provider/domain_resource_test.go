package provider

import (
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/domain-service/terraform-provider-domainservice/internal/client"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

func domainConfig(name, settings string) string {
	return contactConfig + fmt.Sprintf(`
resource "domainservice_domain" "site" {
  name                  = %q
  registrant_contact_id = domainservice_contact.owner.id
%s
}
`, name, settings)
}

func readDomain(t *testing.T, name string) client.Domain {
	return decode[client.Domain](t, call(t, http.MethodGet, api(t).OrgPath("domains", name), nil))
}

// The .com list price in test mode (src/registrar/tldPrices.ts), per year.
const comPrice = 1299

func TestAccDomain(t *testing.T) {
	name := uniqueName("dom")
	var expiresAt string
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { preCheck(t) },
		ProtoV6ProviderFactories: providerFactories,
		CheckDestroy: func(s *terraform.State) error {
			// Released, not deleted: the registration is still the organisation's, as it was.
			if d := readDomain(t, name); d.Status != "active" || !d.AutoRenew {
				t.Errorf("after destroy %s is %s with auto_renew %v; want it left active and renewing", name, d.Status, d.AutoRenew)
			}
			return nil
		},
		Steps: []resource.TestStep{
			{
				// The plan refuses a price above max_price before anything is registered.
				Config:      domainConfig(name, "  years = 2\n  max_price = 2000"),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`max_price`),
			},
			{
				Config: domainConfig(name, "  years = 2\n  max_price = 3000\n  auto_renew = false"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue("domainservice_domain.site", tfjsonpath.New("price"), knownvalue.Int64Exact(2*comPrice)),
				}},
				Check: resource.ComposeTestCheckFunc(
					resource.TestCheckResourceAttr("domainservice_domain.site", "status", "active"),
					resource.TestCheckResourceAttr("domainservice_domain.site", "price", fmt.Sprint(2*comPrice)),
					resource.TestCheckResourceAttr("domainservice_domain.site", "auto_renew", "false"),
					resource.TestCheckResourceAttr("domainservice_domain.site", "livemode", "false"),
					func(s *terraform.State) error {
						expiresAt = s.RootModule().Resources["domainservice_domain.site"].Primary.Attributes["expires_at"]
						return nil
					},
				),
			},
			{
				ResourceName: "domainservice_domain.site", ImportState: true, ImportStateVerify: true, ImportStateId: name,
				ImportStateVerifyIgnore: []string{"years", "max_price", "price"},
			},
			{
				// Settings change in place; raising years renews, quoted at plan.
				Config: domainConfig(name, `  years = 3
  max_price = 3000
  auto_renew = true
  locked = false
  whois_privacy = true
  nameservers = ["ns1.example.net", "ns2.example.net"]`),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("domainservice_domain.site", plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue("domainservice_domain.site", tfjsonpath.New("price"), knownvalue.Int64Exact(comPrice)),
				}},
				Check: resource.ComposeTestCheckFunc(
					resource.TestCheckResourceAttr("domainservice_domain.site", "auto_renew", "true"),
					resource.TestCheckResourceAttr("domainservice_domain.site", "locked", "false"),
					resource.TestCheckResourceAttr("domainservice_domain.site", "whois_privacy", "true"),
					resource.TestCheckResourceAttr("domainservice_domain.site", "nameservers.1", "ns2.example.net"),
					func(s *terraform.State) error {
						renewed := s.RootModule().Resources["domainservice_domain.site"].Primary.Attributes["expires_at"]
						if renewed <= expiresAt {
							return fmt.Errorf("expires_at %s did not move past %s with the renewal", renewed, expiresAt)
						}
						return nil
					},
				),
			},
			{
				Config:      domainConfig(name, "  years = 2"),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`Years cannot go down`),
			},
			{
				// Changed in the dashboard: auto-renewal turned off shows in the next plan.
				PreConfig: func() {
					call(t, http.MethodPatch, api(t).OrgPath("domains", name), map[string]any{"auto_renew": false})
				},
				Config: domainConfig(name, `  years = 3
  auto_renew = true
  locked = false
  whois_privacy = true
  nameservers = ["ns1.example.net", "ns2.example.net"]`),
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
			},
			{
				Config: domainConfig(name, `  years = 3
  auto_renew = true
  locked = false
  whois_privacy = true
  nameservers = ["ns1.example.net", "ns2.example.net"]`),
				Check: resource.TestCheckResourceAttr("domainservice_domain.site", "auto_renew", "true"),
			},
		},
	})
}

// on_destroy = "let_expire": destroying stops the renewals, so the registration ends at its expiry.
func TestAccDomainLetExpire(t *testing.T) {
	name := uniqueName("exp")
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { preCheck(t) },
		ProtoV6ProviderFactories: providerFactories,
		CheckDestroy: func(s *terraform.State) error {
			if d := readDomain(t, name); d.AutoRenew {
				t.Errorf("after destroy %s still renews itself", name)
			}
			return nil
		},
		Steps: []resource.TestStep{{
			Config: domainConfig(name, "  auto_renew = true\n  on_destroy = \"let_expire\""),
			Check:  resource.TestCheckResourceAttr("domainservice_domain.site", "auto_renew", "true"),
		}},
	})
}

// A transfer in: auth_code makes the create a transfer, charged at the transfer price.
func TestAccDomainTransfer(t *testing.T) {
	name := uniqueName("xfr")
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { preCheck(t) },
		ProtoV6ProviderFactories: providerFactories,
		Steps: []resource.TestStep{{
			Config: domainConfig(name, "  auth_code = \"Xq7-Lp2-vK9m\"\n  locked = true"),
			Check: resource.ComposeTestCheckFunc(
				resource.TestCheckResourceAttr("domainservice_domain.site", "status", "active"),
				resource.TestCheckResourceAttr("domainservice_domain.site", "locked", "true"),
			),
		}},
	})
}

// With the contact known at plan time, the plan is the API's dry run of the registration itself:
// a key's spending limit fails it before anything is reserved.
func TestAccDomainPlanDryRun(t *testing.T) {
	c := api(t)
	contact := decode[client.Contact](t, call(t, http.MethodPost, c.OrgPath("contacts"), map[string]any{
		"first_name": "Ada", "last_name": "Lovelace", "email": "ada@example.com", "phone": "+442071234567",
		"address1": "12 St James's Square", "city": "London", "postal_code": "SW1Y 4JH", "country": "GB",
	}))
	limited := decode[client.APIKey](t, call(t, http.MethodPost, "/api/v1/me/api-keys", map[string]any{
		"name": "limited", "scopes": []string{"domains:read", "domains:write", "contacts:read"}, "monthly_spend_limit": 1000,
	}))
	t.Cleanup(func() { call(t, http.MethodDelete, "/api/v1/me/api-keys/"+limited.ID, nil) })
	name := uniqueName("dry")
	domain := fmt.Sprintf(`
resource "domainservice_domain" "site" {
  name                  = %q
  registrant_contact_id = %q
}
`, name, contact.ID)
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { preCheck(t) },
		ProtoV6ProviderFactories: providerFactories,
		Steps: []resource.TestStep{
			{
				Config:      fmt.Sprintf("provider \"domainservice\" {\n  api_key = %q\n}\n", limited.Key) + domain,
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`SPEND_LIMIT_REACHED`),
			},
			{
				// Ten years of a premium name (ten times the list price) cost more than the test
				// balance (test/terraform/provider.test.ts tops up 1,000 USD): refused at plan.
				Config: fmt.Sprintf(`
resource "domainservice_domain" "site" {
  name                  = %q
  registrant_contact_id = %q
  years                 = 10
}
`, strings.Replace(name, ".com", "-premium.com", 1), contact.ID),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`INSUFFICIENT_FUNDS`),
			},
			{
				Config: domain,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue("domainservice_domain.site", tfjsonpath.New("price"), knownvalue.Int64Exact(comPrice)),
				}},
				Check: resource.TestCheckResourceAttr("domainservice_domain.site", "status", "active"),
			},
		},
	})
}
