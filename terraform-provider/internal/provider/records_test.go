package provider

import (
	"testing"

	"github.com/domain-service/terraform-provider-domainservice/internal/client"
)

func priority(p int64) *int64 { return &p }

// Spellings of one record the API stores alike compare equal; different data does not.
func TestRecordKeyIgnoresSpelling(t *testing.T) {
	same := [][2]client.DNSRecord{
		{{Type: "CNAME", Name: "WWW", Content: "Target.Example.net."}, {Type: "CNAME", Name: "www", Content: "target.example.net"}},
		{{Type: "AAAA", Name: "@", Content: "2001:DB8:0:0::1"}, {Type: "AAAA", Name: "", Content: "2001:db8::1"}},
		{{Type: "MX", Name: "@", Content: "mail.example.net.", Priority: priority(10)}, {Type: "MX", Name: "@", Content: "mail.example.net", Priority: priority(10)}},
		{{Type: "CAA", Name: "@", Content: `0 issue "letsencrypt.org"`}, {Type: "CAA", Name: "@", Content: `0  issue  "letsencrypt.org"`}},
		{{Type: "ALIAS", Name: "@", Content: "lb.example.net."}, {Type: "ALIAS", Name: "@", Content: "lb.example.net"}},
	}
	for _, pair := range same {
		if recordKey("example.com", pair[0]) != recordKey("example.com", pair[1]) {
			t.Errorf("%+v and %+v should be the same record:\n%s\n%s", pair[0], pair[1], recordKey("example.com", pair[0]), recordKey("example.com", pair[1]))
		}
	}
	different := [][2]client.DNSRecord{
		{{Type: "TXT", Name: "@", Content: "Hello"}, {Type: "TXT", Name: "@", Content: "hello"}},
		{{Type: "MX", Name: "@", Content: "mail.example.net", Priority: priority(10)}, {Type: "MX", Name: "@", Content: "mail.example.net", Priority: priority(20)}},
		{{Type: "A", Name: "www", Content: "192.0.2.1"}, {Type: "A", Name: "web", Content: "192.0.2.1"}},
	}
	for _, pair := range different {
		if recordKey("example.com", pair[0]) == recordKey("example.com", pair[1]) {
			t.Errorf("%+v and %+v should differ", pair[0], pair[1])
		}
	}
}

// The zone export reads back as the records written: TXT strings joined, priorities apart, the
// host's SOA and apex NS left out.
func TestZoneExportRoundTrip(t *testing.T) {
	long := make([]byte, 300)
	for i := range long {
		long[i] = 'a' + byte(i%26)
	}
	records := []client.DNSRecord{
		{Type: "TXT", Name: "@", Content: `say "hi" \ ` + string(long), TTL: 300},
		{Type: "MX", Name: "@", Content: "mail.example.net", Priority: priority(10), TTL: 3600},
		{Type: "SRV", Name: "_sip._tcp", Content: "5 5060 sip.example.net", Priority: priority(20), TTL: 3600},
		{Type: "CNAME", Name: "www", Content: "example.net", TTL: 3600},
	}
	export := "; example.com\n$ORIGIN example.com.\n$TTL 3600\n@ 3600 IN SOA ns1.example.net. hostmaster.example.com. 1 10800 3600 604800 3600\n@ 3600 IN NS ns1.example.net.\n"
	for _, line := range splitLines(zoneFile("example.com", records))[1:] {
		export += line + "\n"
	}
	got := parseZoneExport("example.com", export)
	if len(got) != len(records) {
		t.Fatalf("read %d records: %+v", len(got), got)
	}
	for i := range records {
		if got[i].Content != records[i].Content || got[i].TTL != records[i].TTL || recordKey("example.com", got[i]) != recordKey("example.com", records[i]) {
			t.Errorf("record %d read back as %+v, wrote %+v", i, got[i], records[i])
		}
	}
}

func splitLines(text string) []string {
	var lines []string
	start := 0
	for i, ch := range text {
		if ch == '\n' {
			lines = append(lines, text[start:i])
			start = i + 1
		}
	}
	return lines
}
