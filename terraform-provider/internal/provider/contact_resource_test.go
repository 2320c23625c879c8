package provider

import (
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/domain-service/terraform-provider-domainservice/internal/client"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
)

func TestAccContact(t *testing.T) {
	var id string
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { preCheck(t) },
		ProtoV6ProviderFactories: providerFactories,
		CheckDestroy: func(s *terraform.State) error {
			_, err := api(t).Do(t.Context(), client.Request{Method: http.MethodGet, Path: api(t).OrgPath("contacts", id)})
			if !client.IsNotFound(err) {
				t.Errorf("contact %s still there after destroy (%v)", id, err)
			}
			return nil
		},
		Steps: []resource.TestStep{
			{
				Config: contactConfig,
				Check: resource.ComposeTestCheckFunc(
					resource.TestMatchResourceAttr("domainservice_contact.owner", "id", regexp.MustCompile(`^ct_`)),
					resource.TestCheckResourceAttr("domainservice_contact.owner", "city", "London"),
					resource.TestCheckResourceAttr("domainservice_contact.owner", "version", "1"),
					func(s *terraform.State) error {
						id = s.RootModule().Resources["domainservice_contact.owner"].Primary.ID
						return nil
					},
				),
			},
			{ResourceName: "domainservice_contact.owner", ImportState: true, ImportStateVerify: true},
			{
				Config: strings.Replace(contactConfig, `"London"`, `"Cambridge"`, 1),
				Check: resource.ComposeTestCheckFunc(
					resource.TestCheckResourceAttr("domainservice_contact.owner", "city", "Cambridge"),
					resource.TestCheckResourceAttr("domainservice_contact.owner", "version", "2"),
				),
			},
			{
				// Changed in the dashboard: the next plan puts it back.
				PreConfig:          func() { call(t, http.MethodPatch, api(t).OrgPath("contacts", id), map[string]any{"city": "Oxford"}) },
				Config:             strings.Replace(contactConfig, `"London"`, `"Cambridge"`, 1),
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
			},
			{
				Config: strings.Replace(contactConfig, `"London"`, `"Cambridge"`, 1),
				Check:  resource.TestCheckResourceAttr("domainservice_contact.owner", "city", "Cambridge"),
			},
		},
	})
}
