package client

// The API's objects as the provider reads them (the OpenAPI document at /api/v1/openapi.json has
// every field; only those the provider uses are here).

type Money struct {
	Amount   int64  `json:"amount"`
	Currency string `json:"currency"`
}

type DryRun struct {
	DryRun         bool  `json:"dry_run"`
	Price          Money `json:"price"`
	AvailableAfter int64 `json:"available_after"`
}

type Availability struct {
	Name        string `json:"name"`
	UnicodeName string `json:"unicode_name"`
	Available   bool   `json:"available"`
	Premium     bool   `json:"premium"`
	Price       *Money `json:"price"`
	Reason      string `json:"reason"`
}

type Domain struct {
	Name                string   `json:"name"`
	Status              string   `json:"status"`
	Livemode            bool     `json:"livemode"`
	ExpiresAt           *string  `json:"expires_at"`
	AutoRenew           bool     `json:"auto_renew"`
	Locked              bool     `json:"locked"`
	Nameservers         []string `json:"nameservers"`
	WhoisPrivacy        bool     `json:"whois_privacy"`
	RegistrantContactID string   `json:"registrant_contact_id"`
	AdminContactID      *string  `json:"admin_contact_id"`
	TechContactID       *string  `json:"tech_contact_id"`
	Version             int64    `json:"version"`
}

type DNSRecord struct {
	ID       string `json:"id,omitempty"`
	Type     string `json:"type"`
	Name     string `json:"name"`
	Content  string `json:"content"`
	TTL      int64  `json:"ttl"`
	Priority *int64 `json:"priority"`
	Version  int64  `json:"version,omitempty"`
}

type DSRecord struct {
	KeyTag     int64  `json:"key_tag"`
	Algorithm  int64  `json:"algorithm"`
	DigestType int64  `json:"digest_type"`
	Digest     string `json:"digest"`
}

type DNSSEC struct {
	Domain      string     `json:"domain"`
	Status      string     `json:"status"`
	DSRecords   []DSRecord `json:"ds_records"`
	DNSKey      *string    `json:"dnskey"`
	OperationID *string    `json:"operation_id"`
}

type Contact struct {
	ID           string  `json:"id,omitempty"`
	FirstName    string  `json:"first_name"`
	LastName     string  `json:"last_name"`
	Organization *string `json:"organization"`
	Email        string  `json:"email"`
	Phone        string  `json:"phone"`
	Address1     string  `json:"address1"`
	Address2     *string `json:"address2"`
	City         string  `json:"city"`
	State        *string `json:"state"`
	PostalCode   string  `json:"postal_code"`
	Country      string  `json:"country"`
	Version      int64   `json:"version,omitempty"`
}

type WebhookEndpoint struct {
	ID          string   `json:"id"`
	URL         string   `json:"url"`
	Events      []string `json:"events"`
	Description *string  `json:"description"`
	Enabled     bool     `json:"enabled"`
	Secret      string   `json:"secret,omitempty"`
}

type APIKey struct {
	ID                string   `json:"id"`
	Name              string   `json:"name"`
	Scopes            []string `json:"scopes"`
	Mode              string   `json:"mode"`
	Prefix            string   `json:"prefix"`
	Status            string   `json:"status"`
	MonthlySpendLimit *int64   `json:"monthly_spend_limit"`
	AllowedIPs        []string `json:"allowed_ips"`
	AllowedDomains    []string `json:"allowed_domains"`
	Key               string   `json:"key,omitempty"`
}

type Organization struct {
	ID                string `json:"id"`
	Name              string `json:"name"`
	Plan              string `json:"plan"`
	Role              string `json:"role"`
	MonthlySpendLimit *int64 `json:"monthly_spend_limit"`
}

type Balance struct {
	Available      int64 `json:"available"`
	Reserved       int64 `json:"reserved"`
	Livemode       bool  `json:"livemode"`
	SpentThisMonth int64 `json:"spent_this_month"`
}

// Page is one page of a list; NextCursor is nil on the last.
type Page[T any] struct {
	Data       []T     `json:"data"`
	NextCursor *string `json:"next_cursor"`
}
