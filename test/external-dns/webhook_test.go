package externaldns

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"testing"

	"sigs.k8s.io/external-dns/endpoint"
	"sigs.k8s.io/external-dns/plan"
	"sigs.k8s.io/external-dns/provider"
	webhookapi "sigs.k8s.io/external-dns/provider/webhook/api"
)

// The webhook client negotiates version 1 (it compares the media type byte for byte) and takes the
// zones the key may touch as its domain filter: not the organisation's domain the key may not.
func TestNegotiatesTheZonesTheKeyMayTouch(t *testing.T) {
	s := harness(t)
	req, _ := http.NewRequest(http.MethodGet, s.webhookURL, nil)
	req.Header.Set("Accept", webhookapi.MediaTypeFormatAndVersion)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if got := res.Header.Get("Content-Type"); got != webhookapi.MediaTypeFormatAndVersion {
		t.Fatalf("Content-Type %q, want %q", got, webhookapi.MediaTypeFormatAndVersion)
	}

	c := newCluster(t, s, "--txt-owner-id=negotiation")
	filter := c.registry.GetDomainFilter()
	for _, zone := range []string{s.zoneA, s.zoneB, s.journey} {
		if !filter.Match("www." + zone) {
			t.Errorf("the domain filter leaves out %s", zone)
		}
	}
	if filter.Match("www." + s.denied) {
		t.Errorf("the domain filter offers %s, which the key may not touch", s.denied)
	}
}

// Creates, updates and deletes through the TXT registry, each record with its ownership TXT, TXT
// values with quotes and commas intact, and an apex record and a wildcard whose ownership TXT the
// prefix and the wildcard replacement keep in the zone. A record made by hand beside them is never
// touched.
func TestCreatesUpdatesAndDeletesWithOwnership(t *testing.T) {
	s := harness(t)
	c := newCluster(t, s, "--txt-owner-id=cluster-a", "--txt-prefix=extdns-%{record_type}.", "--txt-wildcard-replacement=any",
		"--managed-record-types=A", "--managed-record-types=AAAA", "--managed-record-types=CNAME", "--managed-record-types=TXT", "--managed-record-types=MX")
	z := s.zoneA
	note := `say "hi", then "bye"`
	desired := slices.Concat(
		service("web", ep("web."+z, "A", 300, "192.0.2.10", "192.0.2.11"), ep("web."+z, "AAAA", 300, "2001:db8::10")),
		service("apex", ep(z, "A", 0, "192.0.2.1")),
		service("wild", ep("*."+z, "A", 0, "192.0.2.30")),
		service("api", ep("api."+z, "CNAME", 0, "lb.example.net")),
		service("notes", ep("notes."+z, "TXT", 0, note, "v=spf1 include:_spf.example.net ~all")),
		service("mail", ep("mail."+z, "MX", 0, "10 mx1.example.net", "20 mx2.example.net")),
	)
	c.converge(t, desired)

	expectEqual(t, "web A", s.answers(t, "web."+z, "A"), []string{"192.0.2.10", "192.0.2.11"})
	expectEqual(t, "web AAAA", s.answers(t, "web."+z, "AAAA"), []string{"2001:db8::10"})
	expectEqual(t, "apex A", s.answers(t, z, "A"), []string{"192.0.2.1"})
	expectEqual(t, "api CNAME", s.answers(t, "api."+z, "CNAME"), []string{"lb.example.net."})
	expectEqual(t, "notes TXT", s.answers(t, "notes."+z, "TXT"), []string{`"say \"hi\", then \"bye\""`, `"v=spf1 include:_spf.example.net ~all"`})
	expectEqual(t, "mail MX", s.answers(t, "mail."+z, "MX"), []string{"10 mx1.example.net.", "20 mx2.example.net."})
	expectEqual(t, "web's ownership", s.answers(t, "extdns-a.web."+z, "TXT"), []string{ownershipValue("cluster-a", "web")})
	expectEqual(t, "the apex's ownership", s.answers(t, "extdns-a."+z, "TXT"), []string{ownershipValue("cluster-a", "apex")})
	expectEqual(t, "a name only the wildcard covers", s.answers(t, "anything."+z, "A"), []string{"192.0.2.30"})
	expectEqual(t, "the wildcard's ownership", s.answers(t, "extdns-a.any."+z, "TXT"), []string{ownershipValue("cluster-a", "wild")})
	expectEqual(t, "notes' ownership", s.answers(t, "extdns-txt.notes."+z, "TXT"), []string{ownershipValue("cluster-a", "notes")})

	// The registry reads the owner back from what the provider answers.
	records, err := c.registry.Records(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	owned := 0
	for _, r := range records {
		if r.Labels[endpoint.OwnerLabelKey] == "cluster-a" {
			owned++
		}
	}
	if owned != 7 {
		t.Fatalf("the registry sees %d records owned by cluster-a, want 7: %v", owned, records)
	}

	// Update: new addresses and TTL, a new CNAME target, one TXT value fewer.
	desired = slices.Concat(
		service("web", ep("web."+z, "A", 900, "192.0.2.11", "192.0.2.12"), ep("web."+z, "AAAA", 300, "2001:db8::10")),
		service("apex", ep(z, "A", 0, "192.0.2.1")),
		service("wild", ep("*."+z, "A", 0, "192.0.2.30")),
		service("api", ep("api."+z, "CNAME", 0, "lb2.example.net")),
		service("notes", ep("notes."+z, "TXT", 0, note)),
		service("mail", ep("mail."+z, "MX", 0, "10 mx1.example.net", "20 mx2.example.net")),
	)
	changes := c.converge(t, desired)
	if len(changes.UpdateNew) != 3 || len(changes.Create) != 0 || len(changes.Delete) != 0 {
		t.Fatalf("want 3 updates only, got create %v updateNew %v delete %v", changes.Create, changes.UpdateNew, changes.Delete)
	}
	expectEqual(t, "web A after the update", s.dig(t, "web."+z, "A"), []string{"web." + z + " 900 A 192.0.2.11", "web." + z + " 900 A 192.0.2.12"})
	expectEqual(t, "api CNAME after the update", s.answers(t, "api."+z, "CNAME"), []string{"lb2.example.net."})
	expectEqual(t, "notes TXT after the update", s.answers(t, "notes."+z, "TXT"), []string{`"say \"hi\", then \"bye\""`})

	// Delete: the services go, their ownership records with them; the hand-made record stays.
	desired = service("apex", ep(z, "A", 0, "192.0.2.1"))
	c.converge(t, desired)
	wantZone := []string{
		z + " 3600 A 192.0.2.1",
		"extdns-a." + z + " 3600 TXT " + ownershipValue("cluster-a", "apex"),
		s.manual,
	}
	expectEqual(t, "zone A after the deletes", s.zone(t, z), wantZone)
}

// Records another owner's external-dns made are neither changed nor deleted, even when this one
// wants the same name; records outside its zones are never sent.
func TestLeavesAnotherOwnersRecordsAlone(t *testing.T) {
	s := harness(t)
	z := s.zoneB
	other := newCluster(t, s, "--txt-owner-id=cluster-b")
	theirs := service("shop", ep("shop."+z, "A", 0, "192.0.2.50"))
	other.converge(t, theirs)

	mine := newCluster(t, s, "--txt-owner-id=cluster-c")
	// The same name with another address, and a name of its own.
	desired := slices.Concat(
		service("shop", ep("shop."+z, "A", 0, "192.0.2.99")),
		service("blog", ep("blog."+z, "A", 0, "192.0.2.60")),
	)
	changes := mine.converge(t, desired)
	if len(changes.Create) != 1 || len(changes.UpdateNew) != 0 || len(changes.Delete) != 0 {
		t.Fatalf("want blog created only, got create %v updateNew %v delete %v", changes.Create, changes.UpdateNew, changes.Delete)
	}
	expectEqual(t, "cluster-b's shop", s.answers(t, "shop."+z, "A"), []string{"192.0.2.50"})

	// Wanting nothing deletes its own records only.
	if changes := mine.sync(t, nil); len(changes.Delete) != 1 {
		t.Fatalf("want blog deleted only, got %v", changes.Delete)
	}
	expectEqual(t, "zone B at the end", s.zone(t, z), []string{
		"shop." + z + " 3600 A 192.0.2.50",
		"a-shop." + z + " 3600 TXT " + ownershipValue("cluster-b", "shop"),
	})
	other.converge(t, nil)
}

// external-dns's --domain-filter narrows the zones further; endpoints in a domain the key may not
// touch are left out of the plan by the negotiated filter, and sent anyway they are refused with a
// 4xx, which stops the controller rather than being retried.
func TestRespectsTheZoneFilters(t *testing.T) {
	s := harness(t)
	before := s.zone(t, s.denied)
	narrowed := newCluster(t, s, "--txt-owner-id=filtered", "--domain-filter="+s.zoneB)
	desired := slices.Concat(
		service("in", ep("in."+s.zoneB, "A", 0, "192.0.2.70")),
		service("out", ep("out."+s.zoneA, "A", 0, "192.0.2.71")),
		service("denied", ep("intruder."+s.denied, "A", 0, "192.0.2.72")),
		service("foreign", ep("www.not-in-the-organisation.example", "A", 0, "192.0.2.73")),
	)
	changes := narrowed.converge(t, desired)
	if len(changes.Create) != 1 || changes.Create[0].DNSName != "in."+s.zoneB {
		t.Fatalf("want in.%s created only, got %v", s.zoneB, changes.Create)
	}
	if got := s.answers(t, "out."+s.zoneA, "A"); len(got) != 0 {
		t.Fatalf("out.%s was created: %v", s.zoneA, got)
	}
	expectEqual(t, "the denied zone", s.zone(t, s.denied), before)

	wide := newCluster(t, s, "--txt-owner-id=filtered")
	err := wide.provider.ApplyChanges(context.Background(), &plan.Changes{Create: []*endpoint.Endpoint{ep("intruder."+s.denied, "A", 0, "192.0.2.72")}})
	if err == nil || errors.Is(err, provider.SoftError) {
		t.Fatalf("a change in %s was not refused with a 4xx: %v", s.denied, err)
	}
	err = wide.provider.ApplyChanges(context.Background(), &plan.Changes{Create: []*endpoint.Endpoint{ep("bad."+s.zoneB, "A", 0, "not-an-address")}})
	if err == nil || errors.Is(err, provider.SoftError) {
		t.Fatalf("an invalid target was not refused with a 4xx: %v", err)
	}
	expectEqual(t, "the denied zone after the refusals", s.zone(t, s.denied), before)
	narrowed.converge(t, nil)
}

// A CNAME at the apex, as a Service behind a load balancer's host name asks for the zone itself,
// is kept as an ALIAS (PowerDNS answers its target's addresses) and read back as the CNAME it was.
func TestAnApexCNAMEBecomesAnAlias(t *testing.T) {
	s := harness(t)
	z := s.zoneB
	c := newCluster(t, s, "--txt-owner-id=apex", "--txt-prefix=extdns-%{record_type}.")
	desired := slices.Concat(
		service("lb", ep("lb."+z, "A", 0, "192.0.2.90")),
		service("site", ep(z, "CNAME", 0, "lb."+z)),
	)
	c.converge(t, desired)
	expectEqual(t, "the apex's addresses", s.answers(t, z, "A"), []string{"192.0.2.90"})
	expectEqual(t, "the apex's ownership", s.answers(t, "extdns-cname."+z, "TXT"), []string{ownershipValue("apex", "site")})
	c.converge(t, nil)
	expectEqual(t, "zone B at the end", s.zone(t, z), nil)
}
