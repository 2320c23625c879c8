package provider

import (
	"context"
	"net/http"
	"net/url"

	"github.com/domain-service/terraform-provider-domainservice/internal/client"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// ---- organization ----

type organizationDataSource struct{ configuredSource }

func newOrganizationDataSource() datasource.DataSource { return &organizationDataSource{} }

type organizationModel struct {
	ID                types.String `tfsdk:"id"`
	Name              types.String `tfsdk:"name"`
	Plan              types.String `tfsdk:"plan"`
	Role              types.String `tfsdk:"role"`
	MonthlySpendLimit types.Int64  `tfsdk:"monthly_spend_limit"`
}

func (d *organizationDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_organization"
}

func (d *organizationDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "The provider's organisation.",
		Attributes: map[string]schema.Attribute{
			"id":                  schema.StringAttribute{Computed: true, MarkdownDescription: "The organisation id (`org_…`)."},
			"name":                schema.StringAttribute{Computed: true, MarkdownDescription: "Its name."},
			"plan":                schema.StringAttribute{Computed: true, MarkdownDescription: "`free`, `pro` or `enterprise` (rate limits scale with it)."},
			"role":                schema.StringAttribute{Computed: true, MarkdownDescription: "The key's user's role in it."},
			"monthly_spend_limit": schema.Int64Attribute{Computed: true, MarkdownDescription: "The organisation's monthly spending limit in the key's mode, minor units; null for none."},
		},
	}
}

func (d *organizationDataSource) Read(ctx context.Context, _ datasource.ReadRequest, resp *datasource.ReadResponse) {
	org, err := client.Fetch[client.Organization](ctx, d.client, client.Request{Method: http.MethodGet, Path: d.client.OrgPath()})
	if err != nil {
		apiError(&resp.Diagnostics, "Reading the organisation", err)
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, organizationModel{
		ID: types.StringValue(org.ID), Name: types.StringValue(org.Name), Plan: types.StringValue(org.Plan),
		Role: types.StringValue(org.Role), MonthlySpendLimit: optionalInt(org.MonthlySpendLimit),
	})...)
}

// ---- availability ----

type availabilityDataSource struct{ configuredSource }

func newAvailabilityDataSource() datasource.DataSource { return &availabilityDataSource{} }

type availabilityModel struct {
	Name        types.String `tfsdk:"name"`
	UnicodeName types.String `tfsdk:"unicode_name"`
	Available   types.Bool   `tfsdk:"available"`
	Premium     types.Bool   `tfsdk:"premium"`
	Price       types.Int64  `tfsdk:"price"`
	Currency    types.String `tfsdk:"currency"`
}

func (d *availabilityDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_availability"
}

func (d *availabilityDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Whether a name can be registered, and for how much (one year).",
		Attributes: map[string]schema.Attribute{
			"name":         schema.StringAttribute{Required: true, MarkdownDescription: "The name to check, e.g. `example.com` or `bücher.de`."},
			"unicode_name": schema.StringAttribute{Computed: true, MarkdownDescription: "The name in Unicode."},
			"available":    schema.BoolAttribute{Computed: true, MarkdownDescription: "True when it can be registered."},
			"premium":      schema.BoolAttribute{Computed: true, MarkdownDescription: "A premium name (priced by the registry)."},
			"price":        schema.Int64Attribute{Computed: true, MarkdownDescription: "One year of registration in minor units (cents); null when not available."},
			"currency":     schema.StringAttribute{Computed: true, MarkdownDescription: "`USD`."},
		},
	}
}

func (d *availabilityDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var config availabilityModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &config)...)
	if resp.Diagnostics.HasError() {
		return
	}
	a, err := checkAvailability(ctx, d.client, config.Name.ValueString())
	if err != nil {
		apiError(&resp.Diagnostics, "Checking "+config.Name.ValueString(), err)
		return
	}
	out := availabilityModel{Name: config.Name, UnicodeName: types.StringValue(a.UnicodeName), Available: types.BoolValue(a.Available),
		Premium: types.BoolValue(a.Premium), Price: types.Int64Null(), Currency: types.StringValue("USD")}
	if a.Price != nil {
		out.Price, out.Currency = types.Int64Value(a.Price.Amount), types.StringValue(a.Price.Currency)
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, out)...)
}

// ---- domain ----

type domainDataSource struct{ configuredSource }

func newDomainDataSource() datasource.DataSource { return &domainDataSource{} }

type domainDataModel struct {
	Name                types.String `tfsdk:"name"`
	Status              types.String `tfsdk:"status"`
	ExpiresAt           types.String `tfsdk:"expires_at"`
	AutoRenew           types.Bool   `tfsdk:"auto_renew"`
	Locked              types.Bool   `tfsdk:"locked"`
	Nameservers         types.List   `tfsdk:"nameservers"`
	WhoisPrivacy        types.Bool   `tfsdk:"whois_privacy"`
	RegistrantContactID types.String `tfsdk:"registrant_contact_id"`
	Livemode            types.Bool   `tfsdk:"livemode"`
}

func (d *domainDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_domain"
}

func (d *domainDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	computed := func(description string) schema.StringAttribute {
		return schema.StringAttribute{Computed: true, MarkdownDescription: description}
	}
	flag := func(description string) schema.BoolAttribute {
		return schema.BoolAttribute{Computed: true, MarkdownDescription: description}
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "A domain of the organisation, managed here or not.",
		Attributes: map[string]schema.Attribute{
			"name":                  schema.StringAttribute{Required: true, MarkdownDescription: "The domain name."},
			"status":                computed("`registering`, `active`, `transfer_pending`, `expired`, …"),
			"expires_at":            computed("When the registration ends (RFC 3339)."),
			"auto_renew":            flag("Renewed from the balance 30 days before expiry."),
			"locked":                flag("The registry transfer lock."),
			"nameservers":           schema.ListAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: "Name servers."},
			"whois_privacy":         flag("WHOIS privacy as the registrar confirmed it."),
			"registrant_contact_id": computed("The registrant contact."),
			"livemode":              flag("False for a test-mode domain."),
		},
	}
}

func (d *domainDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var config domainDataModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &config)...)
	if resp.Diagnostics.HasError() {
		return
	}
	dom, err := client.Fetch[client.Domain](ctx, d.client, client.Request{Method: http.MethodGet, Path: d.client.OrgPath("domains", config.Name.ValueString())})
	if err != nil {
		apiError(&resp.Diagnostics, "Reading "+config.Name.ValueString(), err)
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, domainDataModel{
		Name: types.StringValue(dom.Name), Status: types.StringValue(dom.Status), ExpiresAt: optionalString(dom.ExpiresAt),
		AutoRenew: types.BoolValue(dom.AutoRenew), Locked: types.BoolValue(dom.Locked), Nameservers: stringList(ctx, dom.Nameservers),
		WhoisPrivacy: types.BoolValue(dom.WhoisPrivacy), RegistrantContactID: types.StringValue(dom.RegistrantContactID), Livemode: types.BoolValue(dom.Livemode),
	})...)
}

// ---- zone ----

type zoneDataSource struct{ configuredSource }

func newZoneDataSource() datasource.DataSource { return &zoneDataSource{} }

type zoneDataModel struct {
	Domain   types.String `tfsdk:"domain"`
	ZoneFile types.String `tfsdk:"zone_file"`
	Records  types.List   `tfsdk:"records"`
}

func (d *zoneDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_zone"
}

func (d *zoneDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	field := func(description string) schema.StringAttribute {
		return schema.StringAttribute{Computed: true, MarkdownDescription: description}
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "A domain's zone, read with one request (the zone export): its records, and the whole RFC 1035 master file " +
			"with the DNS host's SOA and name servers.",
		Attributes: map[string]schema.Attribute{
			"domain":    schema.StringAttribute{Required: true, MarkdownDescription: "The domain."},
			"zone_file": field("The zone as a master file (`named-checkzone` reads it)."),
			"records": schema.ListNestedAttribute{
				Computed: true, MarkdownDescription: "The zone's records (without the SOA and apex NS).",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"type": field("Record type."), "name": field("Relative name, `@` for the apex."), "content": field("The data, as the API stores it."),
					"ttl":      schema.Int64Attribute{Computed: true, MarkdownDescription: "Seconds."},
					"priority": schema.Int64Attribute{Computed: true, MarkdownDescription: "MX and SRV only."},
				}},
			},
		},
	}
}

func (d *zoneDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var config zoneDataModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &config)...)
	if resp.Diagnostics.HasError() {
		return
	}
	domain := config.Domain.ValueString()
	res, err := d.client.Do(ctx, client.Request{Method: http.MethodGet, Path: d.client.OrgPath("domains", domain, "zone"), Accept: "text/dns"})
	if err != nil {
		apiError(&resp.Diagnostics, "Reading the zone of "+domain, err)
		return
	}
	text := string(res.Body)
	elements := []attr.Value{}
	for _, r := range parseZoneExport(domain, text) {
		elements = append(elements, types.ObjectValueMust(zoneRecordAttrTypes, map[string]attr.Value{
			"type": types.StringValue(r.Type), "name": types.StringValue(r.Name), "content": types.StringValue(r.Content),
			"ttl": types.Int64Value(r.TTL), "priority": optionalInt(r.Priority),
		}))
	}
	config.ZoneFile = types.StringValue(text)
	config.Records = types.ListValueMust(types.ObjectType{AttrTypes: zoneRecordAttrTypes}, elements)
	resp.Diagnostics.Append(resp.State.Set(ctx, config)...)
}

// ---- dnssec_ds ----

type dnssecDSDataSource struct{ configuredSource }

func newDNSSECDSDataSource() datasource.DataSource { return &dnssecDSDataSource{} }

type dnssecDSModel struct {
	Domain    types.String `tfsdk:"domain"`
	Status    types.String `tfsdk:"status"`
	DNSKey    types.String `tfsdk:"dnskey"`
	DSRecords types.List   `tfsdk:"ds_records"`
}

func (d *dnssecDSDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_dnssec_ds"
}

func (d *dnssecDSDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "A domain's DNSSEC state and the DS records of its key, e.g. to publish at a parent zone hosted elsewhere.",
		Attributes: map[string]schema.Attribute{
			"domain": schema.StringAttribute{Required: true, MarkdownDescription: "The domain."},
			"status": schema.StringAttribute{Computed: true, MarkdownDescription: "`off`, `signing`, `active` or `removing`."},
			"dnskey": schema.StringAttribute{Computed: true, MarkdownDescription: "The zone's DNSKEY record."},
			"ds_records": schema.ListNestedAttribute{
				Computed: true, MarkdownDescription: "The DS of the zone's key.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"key_tag":     schema.Int64Attribute{Computed: true, MarkdownDescription: "The key's tag."},
					"algorithm":   schema.Int64Attribute{Computed: true, MarkdownDescription: "13: ECDSA P-256 with SHA-256."},
					"digest_type": schema.Int64Attribute{Computed: true, MarkdownDescription: "2: SHA-256."},
					"digest":      schema.StringAttribute{Computed: true, MarkdownDescription: "Lower-case hexadecimal."},
				}},
			},
		},
	}
}

func (d *dnssecDSDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var config dnssecDSModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &config)...)
	if resp.Diagnostics.HasError() {
		return
	}
	state, err := getDNSSEC(ctx, d.client, config.Domain.ValueString())
	if err != nil {
		apiError(&resp.Diagnostics, "Reading DNSSEC of "+config.Domain.ValueString(), err)
		return
	}
	config.Status, config.DNSKey, config.DSRecords = types.StringValue(state.Status), optionalString(state.DNSKey), dsList(state.DSRecords)
	resp.Diagnostics.Append(resp.State.Set(ctx, config)...)
}

// checkAvailability asks whether a name can be registered, and its price for a year.
func checkAvailability(ctx context.Context, c *client.Client, name string) (*client.Availability, error) {
	return client.Fetch[client.Availability](ctx, c, client.Request{Method: http.MethodGet, Path: "/api/v1/domains/availability", Query: url.Values{"name": {name}}})
}
