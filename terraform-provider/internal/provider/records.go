package provider

import (
	"strconv"
	"strings"

	"github.com/domain-service/terraform-provider-domainservice/internal/client"
	"github.com/miekg/dns"
)

// The API stores a record's content normalised (docs/api-guide.md, DNS): host names without their
// trailing dot, TXT unquoted, MX and SRV priority apart. Two spellings of one record (a trailing dot,
// upper-case hex, an IPv6 address written long) are the same record: recordKey compares them in
// zone-file form through miekg/dns, so neither a plan nor a refresh shows a change that is none.

const defaultTTL = 3600

// typesWithHostTarget hold a host name as their whole content.
var typesWithHostTarget = map[string]bool{"CNAME": true, "NS": true, "PTR": true, "ALIAS": true}

// caseSensitiveData: types whose data holds text whose case matters.
var caseSensitiveData = map[string]bool{"TXT": true, "CAA": true, "NAPTR": true}

func absoluteHost(host string) string {
	if host == "." || strings.HasSuffix(host, ".") {
		return host
	}
	return host + "."
}

func relativeHost(host string) string {
	if host == "." {
		return host
	}
	return strings.TrimSuffix(host, ".")
}

// txtPresentation is TXT text as zone-file strings: quoted, escaped, 255 characters a string.
func txtPresentation(text string) string {
	if text == "" {
		return `""`
	}
	var parts []string
	for i := 0; i < len(text); i += 255 {
		end := i + 255
		if end > len(text) {
			end = len(text)
		}
		chunk := strings.ReplaceAll(text[i:end], `\`, `\\`)
		parts = append(parts, `"`+strings.ReplaceAll(chunk, `"`, `\"`)+`"`)
	}
	return strings.Join(parts, " ")
}

// presentation is a record's data as a zone file writes it (the service's presentationContent).
func presentation(r client.DNSRecord) string {
	content := strings.TrimSpace(r.Content)
	priority := int64(0)
	if r.Priority != nil {
		priority = *r.Priority
	}
	switch r.Type {
	case "CNAME", "NS", "PTR", "ALIAS":
		return absoluteHost(content)
	case "MX":
		return strconv.FormatInt(priority, 10) + " " + absoluteHost(content)
	case "SRV":
		fields := strings.Fields(content)
		if len(fields) == 3 {
			return strconv.FormatInt(priority, 10) + " " + fields[0] + " " + fields[1] + " " + absoluteHost(fields[2])
		}
	case "HTTPS", "SVCB":
		fields := strings.Fields(content)
		if len(fields) >= 2 {
			fields[1] = absoluteHost(fields[1])
			return strings.Join(fields, " ")
		}
	case "NAPTR":
		if last := strings.LastIndex(content, " "); last > 0 {
			return content[:last] + " " + absoluteHost(content[last+1:])
		}
	case "TXT":
		return txtPresentation(r.Content)
	}
	return content
}

func ownerName(name, zone string) string {
	name = strings.ToLower(strings.TrimSpace(name))
	if name == "" || name == "@" {
		return zone + "."
	}
	return name + "." + zone + "."
}

// recordKey identifies a record by its name, type and data in canonical form (not its TTL).
func recordKey(zone string, r client.DNSRecord) string {
	return keyOf(zone, ownerName(r.Name, zone), r.Type, presentation(r))
}

func keyOf(zone, owner, rrType, data string) string {
	parseType := rrType
	if rrType == "ALIAS" {
		parseType = "CNAME" // same data (a host name); miekg/dns does not know ALIAS
	}
	canonical := ""
	if rr, err := dns.NewRR(owner + " 0 IN " + parseType + " " + data); err == nil && rr != nil {
		text := rr.String()
		// The data, after the header's tab-separated name, TTL, class and type.
		if fields := strings.SplitN(text, "\t", 5); len(fields) == 5 {
			canonical = fields[4]
		} else {
			canonical = text
		}
	} else {
		canonical = strings.Join(strings.Fields(data), " ")
	}
	if !caseSensitiveData[rrType] {
		canonical = strings.ToLower(canonical)
	}
	return strings.ToLower(owner) + " " + rrType + " " + canonical
}

func ttlOf(r client.DNSRecord) int64 {
	if r.TTL == 0 {
		return defaultTTL
	}
	return r.TTL
}

// zoneFile renders records as a master file the API's zone import reads.
func zoneFile(zone string, records []client.DNSRecord) string {
	var b strings.Builder
	b.WriteString("$ORIGIN " + zone + ".\n")
	for _, r := range records {
		name := strings.TrimSpace(r.Name)
		if name == "" {
			name = "@"
		}
		b.WriteString(name + " " + strconv.FormatInt(ttlOf(r), 10) + " IN " + r.Type + " " + presentation(r) + "\n")
	}
	return b.String()
}

// parseZoneExport reads the API's zone export (one record a line, names relative to the zone,
// data in presentation form) into records as the API stores them. The SOA and the apex NS records
// are the DNS host's own, not the zone's records, and are left out.
func parseZoneExport(zone, text string) []client.DNSRecord {
	var records []client.DNSRecord
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, ";") || strings.HasPrefix(line, "$") {
			continue
		}
		fields := strings.Fields(line)
		if len(fields) < 5 || fields[2] != "IN" {
			continue
		}
		name, rrType := fields[0], fields[3]
		ttl, err := strconv.ParseInt(fields[1], 10, 64)
		if err != nil {
			continue
		}
		if rrType == "SOA" || (rrType == "NS" && name == "@") {
			continue
		}
		// The data is the rest of the line after the type, as written.
		data := strings.TrimSpace(line[strings.Index(line, " "+rrType+" ")+len(rrType)+2:])
		records = append(records, storedForm(name, rrType, ttl, data))
	}
	return records
}

// storedForm turns presentation data back into the API's fields.
func storedForm(name, rrType string, ttl int64, data string) client.DNSRecord {
	r := client.DNSRecord{Type: rrType, Name: name, TTL: ttl, Content: data}
	fields := strings.Fields(data)
	switch {
	case typesWithHostTarget[rrType]:
		r.Content = relativeHost(data)
	case rrType == "MX" && len(fields) == 2:
		r.Priority = parsePriority(fields[0])
		r.Content = relativeHost(fields[1])
	case rrType == "SRV" && len(fields) == 4:
		r.Priority = parsePriority(fields[0])
		r.Content = fields[1] + " " + fields[2] + " " + relativeHost(fields[3])
	case (rrType == "HTTPS" || rrType == "SVCB") && len(fields) >= 2:
		fields[1] = relativeHost(fields[1])
		r.Content = strings.Join(fields, " ")
	case rrType == "NAPTR":
		if last := strings.LastIndex(data, " "); last > 0 {
			r.Content = data[:last] + " " + relativeHost(data[last+1:])
		}
	case rrType == "TXT":
		r.Content = txtText(data)
	}
	return r
}

func parsePriority(text string) *int64 {
	value, err := strconv.ParseInt(text, 10, 64)
	if err != nil {
		return nil
	}
	return &value
}

// txtText joins a TXT record's quoted strings into its text.
func txtText(data string) string {
	var out strings.Builder
	inString, escaped := false, false
	for _, ch := range data {
		switch {
		case escaped:
			out.WriteRune(ch)
			escaped = false
		case ch == '\\' && inString:
			escaped = true
		case ch == '"':
			inString = !inString
		case inString:
			out.WriteRune(ch)
		}
	}
	return out.String()
}
