package provider

import (
	"context"
	"net/http"

	"github.com/domain-service/terraform-provider-domainservice/internal/client"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/listplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// dnssec signs a domain's zone (and in live mode publishes its DS at the registrar). Destroying
// asks for removal: the DS is withdrawn first and the zone is unsigned once the parent's DS TTL has
// passed (docs/api-guide.md, DNSSEC); the service finishes that on its own.
type dnssecResource struct{ configured }

func newDNSSECResource() resource.Resource { return &dnssecResource{} }

var _ resource.ResourceWithImportState = &dnssecResource{}

type dnssecModel struct {
	ID        types.String `tfsdk:"id"`
	Domain    types.String `tfsdk:"domain"`
	Status    types.String `tfsdk:"status"`
	DNSKey    types.String `tfsdk:"dnskey"`
	DSRecords types.List   `tfsdk:"ds_records"`
}

var dsAttrTypes = map[string]attr.Type{"key_tag": types.Int64Type, "algorithm": types.Int64Type, "digest_type": types.Int64Type, "digest": types.StringType}

func dsList(records []client.DSRecord) types.List {
	elements := make([]attr.Value, 0, len(records))
	for _, ds := range records {
		elements = append(elements, types.ObjectValueMust(dsAttrTypes, map[string]attr.Value{
			"key_tag": types.Int64Value(ds.KeyTag), "algorithm": types.Int64Value(ds.Algorithm),
			"digest_type": types.Int64Value(ds.DigestType), "digest": types.StringValue(ds.Digest),
		}))
	}
	return types.ListValueMust(types.ObjectType{AttrTypes: dsAttrTypes}, elements)
}

var dsSchemaAttributes = map[string]schema.Attribute{
	"key_tag":     schema.Int64Attribute{Computed: true, MarkdownDescription: "The key's tag."},
	"algorithm":   schema.Int64Attribute{Computed: true, MarkdownDescription: "13: ECDSA P-256 with SHA-256."},
	"digest_type": schema.Int64Attribute{Computed: true, MarkdownDescription: "2: SHA-256."},
	"digest":      schema.StringAttribute{Computed: true, MarkdownDescription: "Lower-case hexadecimal."},
}

func (r *dnssecResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_dnssec"
}

func (r *dnssecResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	keep := []planmodifier.String{stringplanmodifier.UseStateForUnknown()}
	resp.Schema = schema.Schema{
		MarkdownDescription: "DNSSEC for a domain: its zone signed with an ECDSA P-256 key (algorithm 13) and, in live mode, the key's DS published " +
			"at the registrar. Creating waits until it is `active`. Destroying starts the removal: the DS is withdrawn, and the zone is unsigned " +
			"once resolvers can no longer hold the DS (two days for live domains); the service finishes it. Import with the domain name.",
		Attributes: map[string]schema.Attribute{
			"id":     schema.StringAttribute{Computed: true, MarkdownDescription: "The domain name.", PlanModifiers: keep},
			"domain": schema.StringAttribute{Required: true, MarkdownDescription: "The domain to sign.", PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()}},
			"status": schema.StringAttribute{Computed: true, MarkdownDescription: "`active` once signed and published.", PlanModifiers: keep},
			"dnskey": schema.StringAttribute{Computed: true, MarkdownDescription: "The zone's DNSKEY record.", PlanModifiers: keep},
			"ds_records": schema.ListNestedAttribute{
				Computed: true, MarkdownDescription: "The DS of the zone's key, as the parent zone publishes it.",
				NestedObject:  schema.NestedAttributeObject{Attributes: dsSchemaAttributes},
				PlanModifiers: []planmodifier.List{listplanmodifier.UseStateForUnknown()},
			},
		},
	}
}

func getDNSSEC(ctx context.Context, c *client.Client, domain string) (*client.DNSSEC, error) {
	return client.Fetch[client.DNSSEC](ctx, c, client.Request{Method: http.MethodGet, Path: c.OrgPath("domains", domain, "dnssec")})
}

func (m *dnssecModel) absorb(d *client.DNSSEC) {
	m.ID = m.Domain
	m.Status = types.StringValue(d.Status)
	m.DNSKey = optionalString(d.DNSKey)
	m.DSRecords = dsList(d.DSRecords)
}

func (r *dnssecResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan dnssecModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	domain := plan.Domain.ValueString()
	if _, err := r.client.RunOperation(ctx, client.Request{Method: http.MethodPost, Path: r.client.OrgPath("domains", domain, "dnssec"), IdempotencyKey: client.NewIdempotencyKey("dnssec")}); err != nil {
		apiError(&resp.Diagnostics, "Signing "+domain, err)
		return
	}
	state, err := getDNSSEC(ctx, r.client, domain)
	if err != nil {
		apiError(&resp.Diagnostics, "Reading DNSSEC of "+domain, err)
		return
	}
	plan.absorb(state)
	resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
}

func (r *dnssecResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state dnssecModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	current, err := getDNSSEC(ctx, r.client, state.Domain.ValueString())
	// Turned off (or being removed) elsewhere: the next plan signs it again.
	if client.IsNotFound(err) || (err == nil && (current.Status == "off" || current.Status == "removing")) {
		resp.State.RemoveResource(ctx)
		return
	}
	if err != nil {
		apiError(&resp.Diagnostics, "Reading DNSSEC of "+state.Domain.ValueString(), err)
		return
	}
	state.absorb(current)
	resp.Diagnostics.Append(resp.State.Set(ctx, state)...)
}

func (r *dnssecResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan dnssecModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
}

func (r *dnssecResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state dnssecModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	domain := state.Domain.ValueString()
	_, err := r.client.Do(ctx, client.Request{Method: http.MethodDelete, Path: r.client.OrgPath("domains", domain, "dnssec"), IdempotencyKey: client.NewIdempotencyKey("dnssec-off")})
	if err == nil || client.IsNotFound(err) {
		return
	}
	if client.HasCode(err, "DNSSEC_STATE_CONFLICT") {
		if current, readErr := getDNSSEC(ctx, r.client, domain); readErr == nil && (current.Status == "off" || current.Status == "removing") {
			return // already off, or its removal already under way
		}
	}
	apiError(&resp.Diagnostics, "Turning DNSSEC off for "+domain, err)
}

func (r *dnssecResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("domain"), req.ID)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), req.ID)...)
}
