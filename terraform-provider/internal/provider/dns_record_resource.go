package provider

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/domain-service/terraform-provider-domainservice/internal/client"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// The record types the API serves (docs/api-guide.md, DNS), in its order; TestRecordTypesOfTheAPI
// checks them against the API's declaration (testdata/record_types.json).
var recordTypes = []string{"A", "AAAA", "CNAME", "MX", "TXT", "NS", "SRV", "CAA", "ALIAS", "HTTPS", "SVCB", "TLSA", "SSHFP", "NAPTR", "PTR", "DS"}

const contentDescription = "The record data in zone-file form without the priority: an address for A and AAAA, a host name for CNAME, " +
	"MX, NS, PTR and ALIAS, plain unquoted text for TXT, `weight port target` for SRV, `flags tag \"value\"` for CAA, " +
	"`1 . alpn=h2` for HTTPS and SVCB, `usage selector type hex` for TLSA."

type dnsRecordResource struct{ configured }

func newDNSRecordResource() resource.Resource { return &dnsRecordResource{} }

var _ resource.ResourceWithImportState = &dnsRecordResource{}

type dnsRecordModel struct {
	ID       types.String `tfsdk:"id"`
	Domain   types.String `tfsdk:"domain"`
	Type     types.String `tfsdk:"type"`
	Name     types.String `tfsdk:"name"`
	Content  types.String `tfsdk:"content"`
	TTL      types.Int64  `tfsdk:"ttl"`
	Priority types.Int64  `tfsdk:"priority"`
	Version  types.Int64  `tfsdk:"version"`
}

func (r *dnsRecordResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_dns_record"
}

func (r *dnsRecordResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	replace := []planmodifier.String{stringplanmodifier.RequiresReplace()}
	resp.Schema = schema.Schema{
		MarkdownDescription: "One DNS record of a domain. Other records of the domain are left alone; to own a whole zone use `domainservice_dns_zone_records` " +
			"(and not both for one domain). Import with `<domain>/<record id>`.",
		Attributes: map[string]schema.Attribute{
			"id":     schema.StringAttribute{Computed: true, MarkdownDescription: "The record id (`rec_…`).", PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}},
			"domain": schema.StringAttribute{Required: true, MarkdownDescription: "The domain, e.g. `example.com`.", PlanModifiers: replace},
			"type": schema.StringAttribute{
				Required: true, MarkdownDescription: "One of " + strings.Join(recordTypes, ", ") + ".", PlanModifiers: replace,
				Validators: []validator.String{stringvalidator.OneOf(recordTypes...)},
			},
			"name":     schema.StringAttribute{Required: true, MarkdownDescription: "Relative to the domain: `@` for the domain itself, `www`, `_dmarc`."},
			"content":  schema.StringAttribute{Required: true, MarkdownDescription: contentDescription},
			"ttl":      schema.Int64Attribute{Optional: true, Computed: true, Default: int64default.StaticInt64(defaultTTL), MarkdownDescription: "Seconds, 60–86400; default 3600."},
			"priority": schema.Int64Attribute{Optional: true, MarkdownDescription: "MX and SRV only (0–65535)."},
			"version":  schema.Int64Attribute{Computed: true, MarkdownDescription: "Goes up by one with each change; sent as `If-Match`, so a change made elsewhere since the plan is not overwritten."},
		},
	}
}

func (m dnsRecordModel) record() client.DNSRecord {
	return client.DNSRecord{Type: m.Type.ValueString(), Name: m.Name.ValueString(), Content: m.Content.ValueString(), TTL: m.TTL.ValueInt64(), Priority: intPointer(m.Priority)}
}

// absorb takes the API's record into the model, keeping the configured spelling of the same data.
func (m *dnsRecordModel) absorb(r client.DNSRecord) {
	zone := m.Domain.ValueString()
	if m.Content.IsNull() || m.Content.IsUnknown() || recordKey(zone, m.record()) != recordKey(zone, r) {
		m.Name = types.StringValue(r.Name)
		m.Content = types.StringValue(r.Content)
		m.Priority = optionalInt(r.Priority)
	}
	m.ID = types.StringValue(r.ID)
	m.Type = types.StringValue(r.Type)
	m.TTL = types.Int64Value(r.TTL)
	m.Version = types.Int64Value(r.Version)
}

func (r *dnsRecordResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan dnsRecordModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	body := map[string]any{"type": plan.Type.ValueString(), "name": plan.Name.ValueString(), "content": plan.Content.ValueString(), "ttl": plan.TTL.ValueInt64()}
	if !plan.Priority.IsNull() {
		body["priority"] = plan.Priority.ValueInt64()
	}
	record, err := client.Fetch[client.DNSRecord](ctx, r.client, client.Request{
		Method: http.MethodPost, Path: r.client.OrgPath("domains", plan.Domain.ValueString(), "records"), Body: body,
		IdempotencyKey: client.NewIdempotencyKey("record"),
	})
	if err != nil {
		apiError(&resp.Diagnostics, "Creating the record", err)
		return
	}
	plan.absorb(*record)
	resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
}

func (r *dnsRecordResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state dnsRecordModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	record, err := client.Fetch[client.DNSRecord](ctx, r.client, client.Request{Method: http.MethodGet, Path: r.client.OrgPath("domains", state.Domain.ValueString(), "records", state.ID.ValueString())})
	if client.IsNotFound(err) {
		resp.State.RemoveResource(ctx)
		return
	}
	if err != nil {
		apiError(&resp.Diagnostics, "Reading the record", err)
		return
	}
	state.absorb(*record)
	resp.Diagnostics.Append(resp.State.Set(ctx, state)...)
}

func (r *dnsRecordResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state dnsRecordModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	changes := map[string]any{}
	if !plan.Name.Equal(state.Name) {
		changes["name"] = plan.Name.ValueString()
	}
	if !plan.Content.Equal(state.Content) {
		changes["content"] = plan.Content.ValueString()
	}
	if !plan.TTL.Equal(state.TTL) {
		changes["ttl"] = plan.TTL.ValueInt64()
	}
	if !plan.Priority.Equal(state.Priority) {
		changes["priority"] = intPointer(plan.Priority)
	}
	plan.ID, plan.Version = state.ID, state.Version
	if len(changes) > 0 {
		record, err := client.Fetch[client.DNSRecord](ctx, r.client, client.Request{
			Method: http.MethodPatch, Path: r.client.OrgPath("domains", plan.Domain.ValueString(), "records", state.ID.ValueString()),
			Body: changes, IfMatch: etag(state.Version),
		})
		if err != nil {
			apiError(&resp.Diagnostics, "Changing the record", err)
			return
		}
		plan.absorb(*record)
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
}

func (r *dnsRecordResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state dnsRecordModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	removeIgnoringGone(ctx, r.client, client.Request{Method: http.MethodDelete, Path: r.client.OrgPath("domains", state.Domain.ValueString(), "records", state.ID.ValueString())},
		&resp.Diagnostics, "Deleting the record")
}

func (r *dnsRecordResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	domain, id, ok := strings.Cut(req.ID, "/")
	if !ok || domain == "" || id == "" {
		resp.Diagnostics.AddError("Import id", fmt.Sprintf("Give <domain>/<record id>, e.g. example.com/rec_123; got %q.", req.ID))
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("domain"), domain)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), id)...)
}
