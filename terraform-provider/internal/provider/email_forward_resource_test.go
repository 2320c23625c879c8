package provider

import (
	"fmt"
	"net/http"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
)

func emailForwardConfig(domain, localPart, to string) string {
	return fmt.Sprintf(`
resource "domainservice_email_forward" "hello" {
  domain     = %q
  local_part = %q
  to         = %s
}
`, domain, localPart, to)
}

// The first forward sets the domain's MX record; destroying the last takes it away.
func TestAccEmailForward(t *testing.T) {
	domain := registeredDomain(t, "mailfwd")
	mxCount := func() int {
		page := decode[struct {
			Data []struct{ Type string } `json:"data"`
		}](t, call(t, http.MethodGet, api(t).OrgPath("domains", domain, "records")+"?type=MX", nil))
		return len(page.Data)
	}
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { preCheck(t) },
		ProtoV6ProviderFactories: providerFactories,
		CheckDestroy: func(s *terraform.State) error {
			if n := mxCount(); n != 0 {
				t.Errorf("%d MX records left after the last forward was destroyed", n)
			}
			return nil
		},
		Steps: []resource.TestStep{
			{
				Config: emailForwardConfig(domain, "hello", `["someone@example.org"]`),
				Check: resource.ComposeTestCheckFunc(
					resource.TestMatchResourceAttr("domainservice_email_forward.hello", "id", regexp.MustCompile(`^emf_`)),
					resource.TestCheckResourceAttr("domainservice_email_forward.hello", "local_part", "hello"),
					resource.TestCheckResourceAttr("domainservice_email_forward.hello", "address", "hello@"+domain),
					func(*terraform.State) error {
						if n := mxCount(); n != 1 {
							return fmt.Errorf("want 1 MX record after the first forward, have %d", n)
						}
						return nil
					},
				),
			},
			{
				ResourceName: "domainservice_email_forward.hello", ImportState: true, ImportStateVerify: true,
				ImportStateIdFunc: func(s *terraform.State) (string, error) {
					return domain + "/" + s.RootModule().Resources["domainservice_email_forward.hello"].Primary.ID, nil
				},
			},
			{
				Config: emailForwardConfig(domain, "hello", `["other@example.org", "third@example.net"]`),
				Check:  resource.TestCheckResourceAttr("domainservice_email_forward.hello", "to.#", "2"),
			},
			{
				Config:      emailForwardConfig(domain, "a%b", `["x@example.org"]`),
				ExpectError: regexp.MustCompile(`EMAIL_FORWARD_INVALID`),
			},
		},
	})
}
