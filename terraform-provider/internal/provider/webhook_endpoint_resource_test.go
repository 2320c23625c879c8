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

func webhookConfig(url, events, extra string) string {
	return fmt.Sprintf(`
resource "domainservice_webhook_endpoint" "hooks" {
  url    = %q
  events = %s
%s
}
`, url, events, extra)
}

func TestAccWebhookEndpoint(t *testing.T) {
	var id string
	changed := webhookConfig("https://hooks.example.com/v2", `["dns_record.created", "dns_record.deleted"]`, "  description = \"zone changes\"\n  enabled = false")
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { preCheck(t) },
		ProtoV6ProviderFactories: providerFactories,
		CheckDestroy: func(s *terraform.State) error {
			_, err := api(t).Do(t.Context(), client.Request{Method: http.MethodGet, Path: api(t).OrgPath("webhook-endpoints", id)})
			if !client.IsNotFound(err) {
				t.Errorf("endpoint %s still there after destroy (%v)", id, err)
			}
			return nil
		},
		Steps: []resource.TestStep{
			{
				Config: webhookConfig("https://hooks.example.com/in", `["operation.succeeded"]`, ""),
				Check: resource.ComposeTestCheckFunc(
					resource.TestMatchResourceAttr("domainservice_webhook_endpoint.hooks", "id", regexp.MustCompile(`^we_`)),
					resource.TestMatchResourceAttr("domainservice_webhook_endpoint.hooks", "secret", regexp.MustCompile(`^whsec_`)),
					resource.TestCheckResourceAttr("domainservice_webhook_endpoint.hooks", "enabled", "true"),
					func(s *terraform.State) error {
						id = s.RootModule().Resources["domainservice_webhook_endpoint.hooks"].Primary.ID
						return nil
					},
				),
			},
			{
				// The secret is shown once: an import has none.
				ResourceName: "domainservice_webhook_endpoint.hooks", ImportState: true, ImportStateVerify: true, ImportStateVerifyIgnore: []string{"secret"},
			},
			{
				Config: changed,
				Check: resource.ComposeTestCheckFunc(
					resource.TestCheckResourceAttr("domainservice_webhook_endpoint.hooks", "url", "https://hooks.example.com/v2"),
					resource.TestCheckResourceAttr("domainservice_webhook_endpoint.hooks", "events.#", "2"),
					resource.TestCheckResourceAttr("domainservice_webhook_endpoint.hooks", "enabled", "false"),
					resource.TestMatchResourceAttr("domainservice_webhook_endpoint.hooks", "secret", regexp.MustCompile(`^whsec_`)),
				),
			},
			{
				PreConfig: func() {
					call(t, http.MethodPatch, api(t).OrgPath("webhook-endpoints", id), map[string]any{"url": "https://elsewhere.example.com/in"})
				},
				Config:             changed,
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
			},
			{Config: changed, Check: resource.TestCheckResourceAttr("domainservice_webhook_endpoint.hooks", "url", "https://hooks.example.com/v2")},
		},
	})
}
