// Package externaldns drives our external-dns webhook provider with external-dns's own code: its
// flags, TXT registry, planner and webhook client, against the real service and PowerDNS. It is run
// by webhook.test.ts beside it, which starts them and passes their addresses in the environment;
// run alone, every test fails saying so.
package externaldns

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/external-dns/endpoint"
	"sigs.k8s.io/external-dns/pkg/apis/externaldns"
	"sigs.k8s.io/external-dns/plan"
	"sigs.k8s.io/external-dns/provider"
	"sigs.k8s.io/external-dns/provider/webhook"
	"sigs.k8s.io/external-dns/registry"
	"sigs.k8s.io/external-dns/registry/txt"
)

// setup is what webhook.test.ts started.
type setup struct {
	webhookURL string
	dnsServer  string // PowerDNS, host:port
	pdnsAPI    string // PowerDNS's HTTP API, and its key
	pdnsKey    string
	zoneA      string // the key may touch zones A, B and C
	zoneB      string
	journey    string // zone C, for the journey alone
	denied     string // an active domain of the organisation that the key may not touch
	manual     string // a record in zone A made through the API, owned by no one
}

func harness(t *testing.T) setup {
	t.Helper()
	get := func(name string) string {
		value := os.Getenv(name)
		if value == "" {
			t.Fatalf("%s is not set: run this harness through test/external-dns/webhook.test.ts (npx vitest run test/external-dns)", name)
		}
		return value
	}
	return setup{
		webhookURL: get("EXTDNS_WEBHOOK_URL"),
		dnsServer:  get("EXTDNS_DNS_SERVER"),
		pdnsAPI:    get("EXTDNS_PDNS_API_URL"),
		pdnsKey:    get("EXTDNS_PDNS_API_KEY"),
		zoneA:      get("EXTDNS_ZONE_A"),
		zoneB:      get("EXTDNS_ZONE_B"),
		journey:    get("EXTDNS_ZONE_JOURNEY"),
		denied:     get("EXTDNS_ZONE_DENIED"),
		manual:     get("EXTDNS_MANUAL_RECORD"),
	}
}

// cluster is one external-dns deployment: its flags, and the provider and registry it builds from
// them, as controller/execute.go does.
type cluster struct {
	cfg          *externaldns.Config
	provider     provider.Provider
	registry     registry.Registry
	domainFilter *endpoint.DomainFilter
}

// newCluster parses the flags an operator gives external-dns (beside --provider=webhook and the
// provider URL) and builds what its controller would.
func newCluster(t *testing.T, s setup, flags ...string) *cluster {
	t.Helper()
	cfg := externaldns.NewConfig()
	args := append([]string{"--source=service", "--policy=sync", "--provider=webhook", "--webhook-provider-url=" + s.webhookURL, "--registry=txt"}, flags...)
	if err := cfg.ParseFlags(args); err != nil {
		t.Fatalf("external-dns refused the flags %v: %v", args, err)
	}
	domainFilter := endpoint.NewDomainFilterWithOptions(
		endpoint.WithDomainFilter(cfg.DomainFilter),
		endpoint.WithDomainExclude(cfg.DomainExclude),
		endpoint.WithRegexDomainFilter(cfg.RegexDomainFilter),
		endpoint.WithRegexDomainExclude(cfg.RegexDomainExclude),
	)
	p, err := webhook.New(context.Background(), cfg, domainFilter)
	if err != nil {
		t.Fatalf("the webhook client could not negotiate with the provider: %v", err)
	}
	r, err := txt.New(cfg, p)
	if err != nil {
		t.Fatalf("the TXT registry refused its configuration: %v", err)
	}
	return &cluster{cfg: cfg, provider: p, registry: r, domainFilter: domainFilter}
}

// sync is one run of external-dns's controller (controller.go, RunOnce): the registry's records,
// the desired endpoints adjusted by the provider, the plan, and its changes applied through the
// registry. It answers the changes that were applied.
func (c *cluster) sync(t *testing.T, desired []*endpoint.Endpoint) *plan.Changes {
	t.Helper()
	changes, err := c.trySync(desired)
	if err != nil {
		t.Fatalf("sync failed: %v", err)
	}
	return changes
}

func (c *cluster) trySync(desired []*endpoint.Endpoint) (*plan.Changes, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	records, err := c.registry.Records(ctx)
	if err != nil {
		return nil, fmt.Errorf("records: %w", err)
	}
	endpoints, err := c.registry.AdjustEndpoints(copyEndpoints(desired))
	if err != nil {
		return nil, fmt.Errorf("adjusting endpoints: %w", err)
	}
	policy, ok := plan.Policies[c.cfg.Policy]
	if !ok {
		return nil, fmt.Errorf("unknown policy %q", c.cfg.Policy)
	}
	calculated := (&plan.Plan{
		Policies:       []plan.Policy{policy},
		Current:        records,
		Desired:        endpoints,
		DomainFilter:   endpoint.MatchAllDomainFilters{c.domainFilter, c.registry.GetDomainFilter()},
		ManagedRecords: c.cfg.ManagedDNSRecordTypes,
		ExcludeRecords: c.cfg.ExcludeDNSRecordTypes,
		OwnerID:        c.registry.OwnerID(),
	}).Calculate()
	if calculated.Changes.HasChanges() {
		if err := c.registry.ApplyChanges(ctx, calculated.Changes); err != nil {
			return calculated.Changes, fmt.Errorf("applying changes: %w", err)
		}
	}
	return calculated.Changes, nil
}

// converge syncs, then syncs again and expects nothing left to do: what the provider reads back is
// what external-dns wrote, so a converged cluster sends no changes.
func (c *cluster) converge(t *testing.T, desired []*endpoint.Endpoint) *plan.Changes {
	t.Helper()
	changes := c.sync(t, desired)
	if !changes.HasChanges() {
		t.Fatalf("the first sync planned no change")
	}
	if again := c.sync(t, desired); again.HasChanges() {
		t.Fatalf("a second sync still planned changes: create %v, updateOld %v, updateNew %v, delete %v", again.Create, again.UpdateOld, again.UpdateNew, again.Delete)
	}
	return changes
}

// copyEndpoints keeps the test's desired list intact across syncs: the registry writes labels into
// the endpoints it is given, as it would into a source's fresh ones.
func copyEndpoints(endpoints []*endpoint.Endpoint) []*endpoint.Endpoint {
	copies := make([]*endpoint.Endpoint, 0, len(endpoints))
	for _, e := range endpoints {
		copies = append(copies, e.DeepCopy())
	}
	return copies
}

// service is what a source makes of a Kubernetes Service: endpoints labelled with the resource.
func service(name string, endpoints ...*endpoint.Endpoint) []*endpoint.Endpoint {
	for _, e := range endpoints {
		e.Labels[endpoint.ResourceLabelKey] = "service/default/" + name
	}
	return endpoints
}

func ep(name, recordType string, ttl int64, targets ...string) *endpoint.Endpoint {
	return endpoint.NewEndpointWithTTL(name, recordType, endpoint.TTL(ttl), targets...)
}

// ownershipValue is the TXT value external-dns's registry writes for a service's record.
func ownershipValue(owner, serviceName string) string {
	return fmt.Sprintf(`"heritage=external-dns,external-dns/owner=%s,external-dns/resource=service/default/%s"`, owner, serviceName)
}

// dig asks PowerDNS itself (no recursion, no cache) and answers the answer section's records as
// "name ttl type data" lines, names lower case without the trailing dot.
func (s setup) dig(t *testing.T, args ...string) []string {
	t.Helper()
	host, port, _ := strings.Cut(s.dnsServer, ":")
	cmd := exec.Command("dig", append([]string{"@" + host, "-p", port, "+noall", "+answer", "+norec", "+time=2", "+tries=2"}, args...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("dig %v: %v\n%s", args, err, out)
	}
	var lines []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		if len(fields) < 5 || strings.HasPrefix(line, ";") {
			continue
		}
		name := strings.TrimSuffix(strings.ToLower(fields[0]), ".")
		lines = append(lines, strings.Join(append([]string{name, fields[1], fields[3]}, fields[4:]...), " "))
	}
	return lines
}

// zone is every record PowerDNS holds for the zone, read from its HTTP API, less its SOA and apex NS
// records. Not by AXFR: PowerDNS transfers a zone only to its secondaries, signed with their key
// (docs/api-guide.md, secondary DNS). What it answers for one name is checked by dig (answers).
func (s setup) zone(t *testing.T, zone string) []string {
	t.Helper()
	request, err := http.NewRequest(http.MethodGet, s.pdnsAPI+"/api/v1/servers/localhost/zones/"+zone+".", nil)
	if err != nil {
		t.Fatal(err)
	}
	request.Header.Set("X-API-Key", s.pdnsKey)
	response, err := http.DefaultClient.Do(request)
	if err != nil {
		t.Fatalf("reading zone %s from PowerDNS: %v", zone, err)
	}
	defer response.Body.Close()
	if response.StatusCode != http.StatusOK {
		t.Fatalf("reading zone %s from PowerDNS: %s", zone, response.Status)
	}
	var body struct {
		RRsets []struct {
			Name    string `json:"name"`
			Type    string `json:"type"`
			TTL     int    `json:"ttl"`
			Records []struct {
				Content  string `json:"content"`
				Disabled bool   `json:"disabled"`
			} `json:"records"`
		} `json:"rrsets"`
	}
	if err := json.NewDecoder(response.Body).Decode(&body); err != nil {
		t.Fatalf("reading zone %s from PowerDNS: %v", zone, err)
	}
	var records []string
	for _, rrset := range body.RRsets {
		name := strings.TrimSuffix(strings.ToLower(rrset.Name), ".")
		if rrset.Type == "SOA" || (rrset.Type == "NS" && name == zone) {
			continue
		}
		for _, record := range rrset.Records {
			if !record.Disabled {
				records = append(records, fmt.Sprintf("%s %d %s %s", name, rrset.TTL, rrset.Type, record.Content))
			}
		}
	}
	slices.Sort(records)
	return slices.Compact(records)
}

// answers is the data of the records PowerDNS answers for one name and type.
func (s setup) answers(t *testing.T, name, recordType string) []string {
	t.Helper()
	var data []string
	for _, line := range s.dig(t, name, recordType) {
		fields := strings.Fields(line)
		if fields[2] == recordType {
			data = append(data, strings.Join(fields[3:], " "))
		}
	}
	slices.Sort(data)
	return data
}

func expectEqual(t *testing.T, what string, got, want []string) {
	t.Helper()
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("%s:\n got  %q\n want %q", what, got, want)
	}
}
