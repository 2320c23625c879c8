package provider

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/domain-service/terraform-provider-domainservice/internal/client"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// dns_zone_records owns every record of a zone. It reads the zone in one call (the zone export) and
// writes it in one call (the zone import with mode=replace, which applies the difference through the
// batch path, all or nothing), so a zone of thousands of records costs a plan one request.
type dnsZoneRecordsResource struct{ configured }

func newDNSZoneRecordsResource() resource.Resource { return &dnsZoneRecordsResource{} }

var (
	_ resource.ResourceWithImportState = &dnsZoneRecordsResource{}
	_ resource.ResourceWithModifyPlan  = &dnsZoneRecordsResource{}
)

type zoneRecordsModel struct {
	ID      types.String `tfsdk:"id"`
	Domain  types.String `tfsdk:"domain"`
	Records types.List   `tfsdk:"records"`
}

type zoneRecordModel struct {
	Type     types.String `tfsdk:"type"`
	Name     types.String `tfsdk:"name"`
	Content  types.String `tfsdk:"content"`
	TTL      types.Int64  `tfsdk:"ttl"`
	Priority types.Int64  `tfsdk:"priority"`
}

var zoneRecordAttrTypes = map[string]attr.Type{
	"type": types.StringType, "name": types.StringType, "content": types.StringType, "ttl": types.Int64Type, "priority": types.Int64Type,
}

func (m zoneRecordModel) record() client.DNSRecord {
	return client.DNSRecord{Type: m.Type.ValueString(), Name: m.Name.ValueString(), Content: m.Content.ValueString(), TTL: m.TTL.ValueInt64(), Priority: intPointer(m.Priority)}
}

func (r *dnsZoneRecordsResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_dns_zone_records"
}

func (r *dnsZoneRecordsResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Every DNS record of a domain, authoritatively: records not listed here are deleted, and records added elsewhere " +
			"(the dashboard, the API) show as changes in the next plan. Read with one request (the zone export) and applied with one " +
			"(the zone import, all or nothing), however many records. The SOA and apex NS records are the DNS host's (set `nameservers` " +
			"on the domain). Do not combine with `domainservice_dns_record` for the same domain. Import with the domain name.",
		Attributes: map[string]schema.Attribute{
			"id":     schema.StringAttribute{Computed: true, MarkdownDescription: "The domain name.", PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}},
			"domain": schema.StringAttribute{Required: true, MarkdownDescription: "The domain, e.g. `example.com`.", PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()}},
			"records": schema.ListNestedAttribute{
				Required:            true,
				MarkdownDescription: "The zone's records (at most 20,000). Their order means nothing to the service; it is kept as written, and records added elsewhere come last.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"type":     schema.StringAttribute{Required: true, MarkdownDescription: "One of " + strings.Join(recordTypes, ", ") + ".", Validators: []validator.String{stringvalidator.OneOf(recordTypes...)}},
					"name":     schema.StringAttribute{Required: true, MarkdownDescription: "Relative to the domain: `@` for the domain itself."},
					"content":  schema.StringAttribute{Required: true, MarkdownDescription: contentDescription},
					"ttl":      schema.Int64Attribute{Optional: true, MarkdownDescription: "Seconds, 60–86400; 3600 when not given."},
					"priority": schema.Int64Attribute{Optional: true, MarkdownDescription: "MX and SRV only."},
				}},
			},
		},
	}
}

func (r *dnsZoneRecordsResource) recordsOf(ctx context.Context, set types.List, diags *diag.Diagnostics) []zoneRecordModel {
	var out []zoneRecordModel
	diags.Append(set.ElementsAs(ctx, &out, false)...)
	return out
}

func apiRecords(models []zoneRecordModel) []client.DNSRecord {
	out := make([]client.DNSRecord, 0, len(models))
	for _, m := range models {
		out = append(out, m.record())
	}
	return out
}

// ModifyPlan checks a changed record set with the zone import's dry run: a record the service would
// refuse fails the plan, naming it.
func (r *dnsZoneRecordsResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || r.client == nil {
		return
	}
	var plan zoneRecordsModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() || !known(plan.Domain) || !fullyKnown(ctx, plan.Records) {
		return
	}
	if !req.State.Raw.IsNull() {
		var state zoneRecordsModel
		resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
		if state.Records.Equal(plan.Records) {
			return
		}
	}
	records := r.recordsOf(ctx, plan.Records, &resp.Diagnostics)
	seen := make(map[string]bool, len(records))
	for _, m := range records {
		key := recordKey(plan.Domain.ValueString(), m.record())
		if seen[key] {
			resp.Diagnostics.AddAttributeError(path.Root("records"), "Record listed twice",
				fmt.Sprintf("%s %s %q is listed twice (names and host names are compared without case or trailing dot).", m.Type.ValueString(), m.Name.ValueString(), m.Content.ValueString()))
			return
		}
		seen[key] = true
		if m.Type.ValueString() == "NS" && (m.Name.ValueString() == "@" || m.Name.ValueString() == "") {
			resp.Diagnostics.AddAttributeError(path.Root("records"), "Apex NS records",
				"The apex NS records are the domain's name servers: set `nameservers` on domainservice_domain instead.")
			return
		}
	}
	if _, err := r.importZone(ctx, plan.Domain.ValueString(), apiRecords(records), true); err != nil {
		if client.IsNotFound(err) && req.State.Raw.IsNull() {
			return // the domain is made by this same apply
		}
		apiError(&resp.Diagnostics, "The service would refuse these records", err)
	}
}

type importResult struct {
	Skipped []struct {
		Line   int    `json:"line"`
		Type   string `json:"type"`
		Name   string `json:"name"`
		Reason string `json:"reason"`
	} `json:"skipped"`
}

// importZone replaces the zone's records with these, or with dryRun says what that would change.
// Errors name records by their place in the file, which zoneFile writes one a line after $ORIGIN.
func (r *dnsZoneRecordsResource) importZone(ctx context.Context, domain string, records []client.DNSRecord, dryRun bool) (*importResult, error) {
	req := client.Request{
		Method: http.MethodPost, Path: r.client.OrgPath("domains", domain, "zone"), Query: url.Values{"mode": {"replace"}},
		RawBody: []byte(zoneFile(domain, records)), ContentType: "text/dns", DryRun: dryRun,
	}
	if !dryRun {
		req.IdempotencyKey = client.NewIdempotencyKey("zone")
	}
	res, err := r.client.Do(ctx, req)
	if err != nil {
		var apiErr *client.APIError
		if ok := asAPIError(err, &apiErr); ok {
			apiErr.Detail = describeLines(apiErr.Detail, records)
		}
		return nil, err
	}
	var result importResult
	if err := res.Decode(&result); err != nil {
		return nil, err
	}
	if len(result.Skipped) > 0 {
		var reasons []string
		for _, s := range result.Skipped {
			reasons = append(reasons, fmt.Sprintf("%s %s: %s", s.Type, s.Name, s.Reason))
		}
		return &result, fmt.Errorf("the service left out %d record(s): %s", len(result.Skipped), strings.Join(reasons, "; "))
	}
	return &result, nil
}

// describeLines turns "body.line.N" in a zone import error into the record written on that line.
func describeLines(detail string, records []client.DNSRecord) string {
	for i := len(records); i >= 1; i-- {
		marker := fmt.Sprintf("body.line.%d:", i+1)
		if strings.Contains(detail, marker) {
			r := records[i-1]
			detail = strings.ReplaceAll(detail, marker, fmt.Sprintf("record %s %s %q:", r.Type, r.Name, r.Content))
		}
	}
	return detail
}

// apply makes the zone's records the plan's, and the state the plan.
func (r *dnsZoneRecordsResource) apply(ctx context.Context, planned tfsdk.Plan, state *tfsdk.State, diags *diag.Diagnostics) {
	var plan zoneRecordsModel
	diags.Append(planned.Get(ctx, &plan)...)
	records := r.recordsOf(ctx, plan.Records, diags)
	if diags.HasError() {
		return
	}
	if _, err := r.importZone(ctx, plan.Domain.ValueString(), apiRecords(records), false); err != nil {
		apiError(diags, "Applying the records of "+plan.Domain.ValueString(), err)
		return
	}
	plan.ID = plan.Domain
	diags.Append(state.Set(ctx, plan)...)
}

func (r *dnsZoneRecordsResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	r.apply(ctx, req.Plan, &resp.State, &resp.Diagnostics)
}

func (r *dnsZoneRecordsResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	r.apply(ctx, req.Plan, &resp.State, &resp.Diagnostics)
}

func (r *dnsZoneRecordsResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state zoneRecordsModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	domain := state.Domain.ValueString()
	served, err := exportZone(ctx, r.client, domain)
	if client.IsNotFound(err) {
		resp.State.RemoveResource(ctx)
		return
	}
	if err != nil {
		apiError(&resp.Diagnostics, "Reading the zone of "+domain, err)
		return
	}
	var prior []zoneRecordModel
	if known(state.Records) {
		prior = r.recordsOf(ctx, state.Records, &resp.Diagnostics)
	}
	state.Records = mergeZoneRecords(domain, prior, served, &resp.Diagnostics)
	state.ID = state.Domain
	resp.Diagnostics.Append(resp.State.Set(ctx, state)...)
}

// mergeZoneRecords is the served records as the state's, in the state's order so a plan shows what
// changed where it stands: a record the zone still has keeps its place and spelling (and its unset
// TTL or priority); one changed elsewhere takes the place of the record of its name and type it
// replaced; one deleted elsewhere leaves; ones added elsewhere come last. A list rather than a set:
// the framework compares set elements pairwise, which a zone of thousands of records cannot afford.
func mergeZoneRecords(zone string, prior []zoneRecordModel, served []client.DNSRecord, diags *diag.Diagnostics) types.List {
	byKey := make(map[string][]int, len(served))
	byNameType := make(map[string][]int, len(served))
	for i, s := range served {
		byKey[recordKey(zone, s)] = append(byKey[recordKey(zone, s)], i)
		byNameType[nameTypeKey(zone, s)] = append(byNameType[nameTypeKey(zone, s)], i)
	}
	taken := make([]bool, len(served))
	take := func(candidates []int) int {
		for _, i := range candidates {
			if !taken[i] {
				taken[i] = true
				return i
			}
		}
		return -1
	}
	placed := make([]int, len(prior))
	for p, m := range prior {
		placed[p] = take(byKey[recordKey(zone, m.record())])
	}
	for p, m := range prior {
		if placed[p] < 0 {
			placed[p] = -2 - take(byNameType[nameTypeKey(zone, m.record())]) // changed in place; -1 stays "gone"
		}
	}
	elements := make([]attr.Value, 0, len(served))
	add := func(m zoneRecordModel) {
		value, d := types.ObjectValueFrom(context.Background(), zoneRecordAttrTypes, m)
		diags.Append(d...)
		elements = append(elements, value)
	}
	for p, m := range prior {
		switch i := placed[p]; {
		case i >= 0:
			if ttlOf(m.record()) != served[i].TTL {
				m.TTL = types.Int64Value(served[i].TTL)
			}
			add(m)
		case i <= -2:
			add(modelOf(served[-2-i]))
		}
	}
	for i, s := range served {
		if !taken[i] {
			add(modelOf(s))
		}
	}
	list, d := types.ListValue(types.ObjectType{AttrTypes: zoneRecordAttrTypes}, elements)
	diags.Append(d...)
	return list
}

func nameTypeKey(zone string, r client.DNSRecord) string {
	return ownerName(r.Name, zone) + " " + r.Type
}

// modelOf is a served record as configuration would write it (TTL left out when it is the default).
func modelOf(s client.DNSRecord) zoneRecordModel {
	ttl := types.Int64Value(s.TTL)
	if s.TTL == defaultTTL {
		ttl = types.Int64Null()
	}
	return zoneRecordModel{Type: types.StringValue(s.Type), Name: types.StringValue(s.Name), Content: types.StringValue(s.Content), TTL: ttl, Priority: optionalInt(s.Priority)}
}

// exportZone reads the zone's records with one request.
func exportZone(ctx context.Context, c *client.Client, domain string) ([]client.DNSRecord, error) {
	res, err := c.Do(ctx, client.Request{Method: http.MethodGet, Path: c.OrgPath("domains", domain, "zone"), Accept: "text/dns"})
	if err != nil {
		return nil, err
	}
	return parseZoneExport(domain, string(res.Body)), nil
}

func (r *dnsZoneRecordsResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state zoneRecordsModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if _, err := r.importZone(ctx, state.Domain.ValueString(), nil, false); err != nil && !client.IsNotFound(err) && !client.HasCode(err, "DOMAIN_STATE_CONFLICT") {
		apiError(&resp.Diagnostics, "Deleting the records of "+state.Domain.ValueString(), err)
	}
}

func (r *dnsZoneRecordsResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("domain"), req.ID)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), req.ID)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("records"), types.ListNull(types.ObjectType{AttrTypes: zoneRecordAttrTypes}))...)
}

// fullyKnown: the set and every value in it are known (a record may take a value from another resource).
func fullyKnown(ctx context.Context, set types.List) bool {
	if !known(set) {
		return false
	}
	value, err := set.ToTerraformValue(ctx)
	return err == nil && value.IsFullyKnown()
}
