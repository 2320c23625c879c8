package provider

import (
	"encoding/json"
	"os"
	"slices"
	"testing"

	"github.com/domain-service/terraform-provider-domainservice/internal/client"
)

// testdata/record_types.json is written from the service's declaration of its record types
// (src/features/dns/recordTypes.ts; src/features/dns/recordTypes.test.ts keeps it up to date): the
// types the API takes, in its order, and an example of each in stored and zone-file form.
type apiRecordType struct {
	Type         string `json:"type"`
	Name         string `json:"name"`
	Content      string `json:"content"`
	Priority     *int64 `json:"priority"`
	Presentation string `json:"presentation"`
	CaseMatters  bool   `json:"case_matters"`
}

// The provider takes the API's record types, and writes and reads each one's data as the API does.
func TestRecordTypesOfTheAPI(t *testing.T) {
	raw, err := os.ReadFile("testdata/record_types.json")
	if err != nil {
		t.Fatal(err)
	}
	var declared []apiRecordType
	if err := json.Unmarshal(raw, &declared); err != nil {
		t.Fatal(err)
	}
	var types []string
	for _, d := range declared {
		types = append(types, d.Type)
		record := client.DNSRecord{Type: d.Type, Name: d.Name, Content: d.Content, TTL: defaultTTL, Priority: d.Priority}
		if got := presentation(record); got != d.Presentation {
			t.Errorf("%s: presentation(%q) = %q, the API writes %q", d.Type, d.Content, got, d.Presentation)
		}
		stored := storedForm(d.Name, d.Type, defaultTTL, d.Presentation)
		if stored.Content != d.Content || !samePriority(stored.Priority, d.Priority) {
			t.Errorf("%s: storedForm(%q) = %q (priority %v), the API stores %q (priority %v)", d.Type, d.Presentation, stored.Content, stored.Priority, d.Content, d.Priority)
		}
		if caseSensitiveData[d.Type] != d.CaseMatters {
			t.Errorf("%s: caseSensitiveData is %v, the API's declaration says %v", d.Type, caseSensitiveData[d.Type], d.CaseMatters)
		}
	}
	if !slices.Equal(recordTypes, types) {
		t.Errorf("recordTypes = %v, the API's are %v", recordTypes, types)
	}
}

func samePriority(a, b *int64) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}
