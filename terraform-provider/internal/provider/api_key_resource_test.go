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

func apiKeyConfig(extra string) string {
	return fmt.Sprintf(`
resource "domainservice_api_key" "ci" {
  name   = "CI certificates"
  scopes = ["dns:read", "dns:write"]
%s
}
`, extra)
}

func keyOfUser(t *testing.T, id string) *client.APIKey {
	keys := client.Must(client.ListAll(t.Context(), api(t), "/api/v1/me/api-keys", func(k client.APIKey) bool { return k.ID == id }))
	for _, k := range keys {
		if k.ID == id {
			return &k
		}
	}
	return nil
}

func TestAccAPIKey(t *testing.T) {
	var id, secret string
	restricted := apiKeyConfig("  monthly_spend_limit = 0\n  allowed_domains = [\"*.example.com\"]\n  allowed_ips = [\"203.0.113.0/24\"]")
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { preCheck(t) },
		ProtoV6ProviderFactories: providerFactories,
		CheckDestroy: func(s *terraform.State) error {
			if key := keyOfUser(t, id); key != nil {
				t.Errorf("key %s still listed after destroy", id)
			}
			return nil
		},
		Steps: []resource.TestStep{
			{
				Config: apiKeyConfig(""),
				Check: resource.ComposeTestCheckFunc(
					resource.TestMatchResourceAttr("domainservice_api_key.ci", "key", regexp.MustCompile(`^svc_test_`)),
					resource.TestCheckResourceAttr("domainservice_api_key.ci", "mode", "test"),
					func(s *terraform.State) error {
						attributes := s.RootModule().Resources["domainservice_api_key.ci"].Primary.Attributes
						id, secret = attributes["id"], attributes["key"]
						// The secret works: the new key reads DNS in this organisation.
						_, err := client.New(api(t).BaseURL, secret, api(t).OrgID, "acceptance-test").Do(t.Context(),
							client.Request{Method: http.MethodGet, Path: api(t).OrgPath("domains", "example.com", "records")})
						if err != nil && !client.IsNotFound(err) {
							return fmt.Errorf("the new key does not work: %w", err)
						}
						return nil
					},
				),
			},
			{ResourceName: "domainservice_api_key.ci", ImportState: true, ImportStateVerify: true, ImportStateVerifyIgnore: []string{"key"}},
			{
				// Limits and restrictions change in place: the same key, the same secret.
				Config: restricted,
				Check: resource.ComposeTestCheckFunc(
					resource.TestCheckResourceAttr("domainservice_api_key.ci", "monthly_spend_limit", "0"),
					resource.TestCheckResourceAttr("domainservice_api_key.ci", "allowed_domains.0", "*.example.com"),
					func(s *terraform.State) error {
						if got := s.RootModule().Resources["domainservice_api_key.ci"].Primary.Attributes["key"]; got != secret {
							return fmt.Errorf("the secret changed on an in-place update")
						}
						return nil
					},
				),
			},
			{
				PreConfig: func() {
					call(t, http.MethodPatch, "/api/v1/me/api-keys/"+id, map[string]any{"allowed_ips": []string{}})
				},
				Config:             restricted,
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
			},
			{Config: restricted, Check: resource.TestCheckResourceAttr("domainservice_api_key.ci", "allowed_ips.0", "203.0.113.0/24")},
		},
	})
}
