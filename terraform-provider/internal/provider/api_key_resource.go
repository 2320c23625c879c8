package provider

import (
	"context"
	"net/http"

	"github.com/domain-service/terraform-provider-domainservice/internal/client"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/setplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// api_key: a key of the provider's own user (keys belong to people, not organisations).
type apiKeyResource struct{ configured }

func newAPIKeyResource() resource.Resource { return &apiKeyResource{} }

var _ resource.ResourceWithImportState = &apiKeyResource{}

type apiKeyModel struct {
	ID                types.String `tfsdk:"id"`
	Name              types.String `tfsdk:"name"`
	Scopes            types.Set    `tfsdk:"scopes"`
	Mode              types.String `tfsdk:"mode"`
	MonthlySpendLimit types.Int64  `tfsdk:"monthly_spend_limit"`
	AllowedIPs        types.Set    `tfsdk:"allowed_ips"`
	AllowedDomains    types.Set    `tfsdk:"allowed_domains"`
	Prefix            types.String `tfsdk:"prefix"`
	Key               types.String `tfsdk:"key"`
}

func (r *apiKeyResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_api_key"
}

func (r *apiKeyResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	keep := []planmodifier.String{stringplanmodifier.UseStateForUnknown()}
	replaceString := []planmodifier.String{stringplanmodifier.RequiresReplace()}
	optionalSet := func(description string) schema.SetAttribute {
		return schema.SetAttribute{ElementType: types.StringType, Optional: true, Computed: true, MarkdownDescription: description,
			PlanModifiers: []planmodifier.Set{setplanmodifier.UseStateForUnknown()}}
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "An API key of the provider's user, e.g. a narrow key for a CI job. The secret is shown by the API once, at creation: " +
			"it is kept in the state as a sensitive value (an imported key has none). Changing `name`, `scopes` or `mode` makes a new key " +
			"(create, deploy, delete is the rotation the service recommends); spending limits and restrictions change in place. " +
			"A key can create keys only with `keys:write`, within its own scopes and mode. Import with the key id.",
		Attributes: map[string]schema.Attribute{
			"id":   schema.StringAttribute{Computed: true, MarkdownDescription: "The key id.", PlanModifiers: keep},
			"name": schema.StringAttribute{Required: true, MarkdownDescription: "A label to recognise the key by.", PlanModifiers: replaceString},
			"scopes": schema.SetAttribute{
				ElementType: types.StringType, Required: true, MarkdownDescription: "What the key may do, e.g. `dns:read`, `dns:write`.",
				PlanModifiers: []planmodifier.Set{setplanmodifier.RequiresReplace()},
			},
			"mode": schema.StringAttribute{
				Optional: true, Computed: true, MarkdownDescription: "`live` or `test`; default the provider key's mode.",
				Validators:    []validator.String{stringvalidator.OneOf("live", "test")},
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown(), stringplanmodifier.RequiresReplace()},
			},
			"monthly_spend_limit": schema.Int64Attribute{Optional: true, MarkdownDescription: "The most the key's paid requests may reserve in a calendar month, in minor units."},
			"allowed_ips":         optionalSet("CIDRs the key may be used from; empty: anywhere."),
			"allowed_domains":     optionalSet("Domains (or `*.suffix`) the key may act on; empty: any."),
			"prefix":              schema.StringAttribute{Computed: true, MarkdownDescription: "The key's first characters, as key lists show them.", PlanModifiers: keep},
			"key":                 schema.StringAttribute{Computed: true, Sensitive: true, MarkdownDescription: "The secret, known only to the state that created the key.", PlanModifiers: keep},
		},
	}
}

func (m apiKeyModel) guards(ctx context.Context) map[string]any {
	body := map[string]any{"monthly_spend_limit": intPointer(m.MonthlySpendLimit)}
	if known(m.AllowedIPs) {
		var ips []string
		m.AllowedIPs.ElementsAs(ctx, &ips, false)
		body["allowed_ips"] = ips
	}
	if known(m.AllowedDomains) {
		var domains []string
		m.AllowedDomains.ElementsAs(ctx, &domains, false)
		body["allowed_domains"] = domains
	}
	return body
}

func (m *apiKeyModel) absorb(k client.APIKey) {
	m.ID, m.Name, m.Mode, m.Prefix = types.StringValue(k.ID), types.StringValue(k.Name), types.StringValue(k.Mode), types.StringValue(k.Prefix)
	m.Scopes = stringSet(k.Scopes)
	m.MonthlySpendLimit = optionalInt(k.MonthlySpendLimit)
	m.AllowedIPs = stringSet(k.AllowedIPs)
	m.AllowedDomains = stringSet(k.AllowedDomains)
	if k.Key != "" {
		m.Key = types.StringValue(k.Key)
	}
}

func (r *apiKeyResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan apiKeyModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	body := plan.guards(ctx)
	body["name"] = plan.Name.ValueString()
	var scopes []string
	plan.Scopes.ElementsAs(ctx, &scopes, false)
	body["scopes"] = scopes
	if known(plan.Mode) {
		body["mode"] = plan.Mode.ValueString()
	}
	key, err := client.Fetch[client.APIKey](ctx, r.client, client.Request{Method: http.MethodPost, Path: "/api/v1/me/api-keys", Body: body, IdempotencyKey: client.NewIdempotencyKey("key")})
	if err != nil {
		apiError(&resp.Diagnostics, "Creating the API key", err)
		return
	}
	plan.absorb(*key)
	resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
}

// findKey looks the key up in the caller's key list (the API has no route for one key).
func (r *apiKeyResource) findKey(ctx context.Context, id string) (*client.APIKey, error) {
	keys, err := client.ListAll(ctx, r.client, "/api/v1/me/api-keys", func(k client.APIKey) bool { return k.ID == id })
	if err != nil {
		return nil, err
	}
	for _, k := range keys {
		if k.ID == id {
			return &k, nil
		}
	}
	return nil, nil
}

func (r *apiKeyResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state apiKeyModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	key, err := r.findKey(ctx, state.ID.ValueString())
	if err != nil {
		apiError(&resp.Diagnostics, "Reading the API key", err)
		return
	}
	// Deleted, or revoked (a leaked key): the next plan makes a new one.
	if key == nil || key.Status != "active" {
		resp.State.RemoveResource(ctx)
		return
	}
	state.absorb(*key)
	resp.Diagnostics.Append(resp.State.Set(ctx, state)...)
}

func (r *apiKeyResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state apiKeyModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	key, err := client.Fetch[client.APIKey](ctx, r.client, client.Request{Method: http.MethodPatch, Path: "/api/v1/me/api-keys/" + state.ID.ValueString(), Body: plan.guards(ctx)})
	if err != nil {
		apiError(&resp.Diagnostics, "Changing the API key", err)
		return
	}
	plan.Key = state.Key
	plan.absorb(*key)
	resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
}

func (r *apiKeyResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state apiKeyModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	removeIgnoringGone(ctx, r.client, client.Request{Method: http.MethodDelete, Path: "/api/v1/me/api-keys/" + state.ID.ValueString()},
		&resp.Diagnostics, "Deleting the API key")
}

func (r *apiKeyResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	resource.ImportStatePassthroughID(ctx, path.Root("id"), req, resp)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("key"), types.StringNull())...)
}
