package externaldns

import (
	"fmt"
	"strings"
	"testing"

	"sigs.k8s.io/external-dns/endpoint"
)

const journeyOwner = "journey"

// svc is one Kubernetes Service as external-dns's sources see it: a host name with addresses, or
// with a CNAME target (a load balancer's name), and a TTL annotation or none.
type svc struct {
	name  string
	v4    []string
	v6    []string
	cname string
	ttl   int64
}

func (v svc) endpoints(zone string) []*endpoint.Endpoint {
	host := v.name + "." + zone
	var endpoints []*endpoint.Endpoint
	if len(v.v4) > 0 {
		endpoints = append(endpoints, ep(host, "A", v.ttl, v.v4...))
	}
	if len(v.v6) > 0 {
		endpoints = append(endpoints, ep(host, "AAAA", v.ttl, v.v6...))
	}
	if v.cname != "" {
		endpoints = append(endpoints, ep(host, "CNAME", v.ttl, v.cname))
	}
	return service(v.name, endpoints...)
}

// served is what PowerDNS must serve for the services, as `zone` lines: every record, and beside
// each RRset the ownership TXT external-dns's registry writes (`a-`, `aaaa-`, `cname-` prefixes).
func served(zone string, services []svc) (desired []*endpoint.Endpoint, want []string) {
	for _, v := range services {
		for _, e := range v.endpoints(zone) {
			desired = append(desired, e)
			ttl := int64(e.RecordTTL)
			if ttl == 0 {
				ttl = 3600
			}
			for _, target := range e.Targets {
				if e.RecordType == "CNAME" {
					target += "."
				}
				want = append(want, fmt.Sprintf("%s %d %s %s", e.DNSName, ttl, e.RecordType, target))
			}
			want = append(want, fmt.Sprintf("%s-%s 3600 TXT %s", strings.ToLower(e.RecordType), e.DNSName, ownershipValue(journeyOwner, v.name)))
		}
	}
	return desired, want
}

// Ten Services' worth of endpoints, created, changed and deleted as a cluster's Services would be,
// each step converging with PowerDNS serving exactly the desired records and their ownership.
func TestJourneyOfTenServices(t *testing.T) {
	s := harness(t)
	c := newCluster(t, s, "--txt-owner-id="+journeyOwner, "--interval=1m")
	zone := s.journey
	lb := func(i int) string { return fmt.Sprintf("lb-%d.elb.example.net", i) }

	services := make([]svc, 10)
	for i := range services {
		v := svc{name: fmt.Sprintf("svc-%d", i)}
		switch {
		case i < 5:
			v.v4, v.ttl = []string{fmt.Sprintf("192.0.2.%d", 10+2*i), fmt.Sprintf("192.0.2.%d", 11+2*i)}, 300
		case i < 7:
			v.v4, v.v6 = []string{fmt.Sprintf("198.51.100.%d", i)}, []string{fmt.Sprintf("2001:db8::%d", i)}
		case i < 9:
			v.cname, v.ttl = lb(i), 600
		default:
			v.v4, v.ttl = []string{"203.0.113.9"}, 120
		}
		services[i] = v
	}
	step := func(what string) {
		t.Helper()
		desired, want := served(zone, services)
		c.converge(t, desired)
		expectEqual(t, what+": the zone PowerDNS serves", s.zone(t, zone), want)
	}
	step("created")

	services[0].v4 = []string{"192.0.2.11", "192.0.2.100"}                  // one address replaced
	services[1].ttl = 900                                                   // a TTL annotation changed
	services[5].v6 = nil                                                    // IPv6 dropped
	services[7] = svc{name: "svc-7", v4: []string{"203.0.113.7"}, ttl: 600} // a load balancer name became an address
	services[8].cname = lb(80)                                              // another load balancer
	services[9] = svc{name: "svc-9", cname: lb(9)}                          // an address became a load balancer name
	step("changed")

	var kept []svc
	for i, v := range services {
		if i != 2 && i != 3 && i != 6 {
			kept = append(kept, v)
		}
	}
	services = kept
	step("deleted")
	if got := s.answers(t, "svc-3."+zone, "A"); len(got) != 0 {
		t.Fatalf("svc-3 still answers %v", got)
	}
	expectEqual(t, "svc-0 A", s.answers(t, "svc-0."+zone, "A"), []string{"192.0.2.100", "192.0.2.11"})
	expectEqual(t, "svc-9 CNAME", s.answers(t, "svc-9."+zone, "CNAME"), []string{lb(9) + "."})
}
