package provider

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/domain-service/terraform-provider-domainservice/internal/client"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
)

// The acceptance tests run against a real service in test mode (test/terraform/provider.test.ts
// starts one and sets DOMAIN_SERVICE_URL, DOMAIN_SERVICE_API_KEY and DOMAIN_SERVICE_ORG) with
// OpenTofu as the binary (TF_ACC_TERRAFORM_PATH).

var providerFactories = map[string]func() (tfprotov6.ProviderServer, error){
	"domainservice": providerserver.NewProtocol6WithError(New("test")()),
}

func preCheck(t *testing.T) {
	t.Helper()
	for _, env := range []string{EnvBaseURL, EnvAPIKey, EnvOrg} {
		if os.Getenv(env) == "" {
			t.Fatalf("%s must be set for acceptance tests", env)
		}
	}
}

// api is a client of the same service, key and organisation, for what the tests do around
// Terraform: changes made elsewhere (as the dashboard makes them) and checks after destroy.
func api(t *testing.T) *client.Client {
	t.Helper()
	return client.New(os.Getenv(EnvBaseURL), os.Getenv(EnvAPIKey), os.Getenv(EnvOrg), "acceptance-test")
}

func call(t *testing.T, method, path string, body any) *client.Response {
	t.Helper()
	res, err := api(t).Do(context.Background(), client.Request{Method: method, Path: path, Body: body, IdempotencyKey: idempotencyFor(method)})
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	return res
}

func idempotencyFor(method string) string {
	if method == http.MethodPost {
		return client.NewIdempotencyKey("test")
	}
	return ""
}

func decode[T any](t *testing.T, res *client.Response) T {
	t.Helper()
	var out T
	if err := res.Decode(&out); err != nil {
		t.Fatal(err)
	}
	return out
}

// uniqueName is a test-mode .com name no other test (or earlier run) holds.
func uniqueName(label string) string {
	return fmt.Sprintf("tf-%s-%d-%06d.com", label, time.Now().Unix()%100000, rand.IntN(1_000_000))
}

const contactConfig = `
resource "domainservice_contact" "owner" {
  first_name  = "Ada"
  last_name   = "Lovelace"
  email       = "ada@example.com"
  phone       = "+442071234567"
  address1    = "12 St James's Square"
  city        = "London"
  postal_code = "SW1Y 4JH"
  country     = "GB"
}
`

// registeredDomain registers a test-mode domain through the API (not Terraform), for tests of
// the resources that live on one.
func registeredDomain(t *testing.T, label string) string {
	t.Helper()
	c := api(t)
	contact := decode[client.Contact](t, call(t, http.MethodPost, c.OrgPath("contacts"), map[string]any{
		"first_name": "Ada", "last_name": "Lovelace", "email": "ada@example.com", "phone": "+442071234567",
		"address1": "12 St James's Square", "city": "London", "postal_code": "SW1Y 4JH", "country": "GB",
	}))
	name := uniqueName(label)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	register := client.Request{Method: http.MethodPost, Path: c.OrgPath("domains"), Body: map[string]any{"name": name, "years": 1, "registrant_contact_id": contact.ID}, IdempotencyKey: client.NewIdempotencyKey("test")}
	if _, err := c.RunOperation(ctx, register); err != nil {
		t.Fatalf("registering %s: %v", name, err)
	}
	return name
}

// countingProxy stands in front of the service and counts the requests that pass, so a test can
// say how many API calls a plan made.
type countingProxy struct {
	URL   string
	count atomic.Int64
}

func newCountingProxy(t *testing.T) *countingProxy {
	t.Helper()
	target, err := url.Parse(os.Getenv(EnvBaseURL))
	if err != nil {
		t.Fatal(err)
	}
	p := &countingProxy{}
	proxy := httputil.NewSingleHostReverseProxy(target)
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.count.Add(1)
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(server.Close)
	p.URL = server.URL
	return p
}

func (p *countingProxy) reset() int64 { return p.count.Swap(0) }
