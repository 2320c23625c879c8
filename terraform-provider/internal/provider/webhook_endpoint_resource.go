package provider

import (
	"context"
	"net/http"

	"github.com/domain-service/terraform-provider-domainservice/internal/client"
	"github.com/hashicorp/terraform-plugin-framework-validators/setvalidator"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

type webhookEndpointResource struct{ configured }

func newWebhookEndpointResource() resource.Resource { return &webhookEndpointResource{} }

var _ resource.ResourceWithImportState = &webhookEndpointResource{}

type webhookEndpointModel struct {
	ID          types.String `tfsdk:"id"`
	URL         types.String `tfsdk:"url"`
	Events      types.Set    `tfsdk:"events"`
	Description types.String `tfsdk:"description"`
	Enabled     types.Bool   `tfsdk:"enabled"`
	Secret      types.String `tfsdk:"secret"`
}

func (r *webhookEndpointResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_webhook_endpoint"
}

func (r *webhookEndpointResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	keep := []planmodifier.String{stringplanmodifier.UseStateForUnknown()}
	resp.Schema = schema.Schema{
		MarkdownDescription: "A webhook endpoint: events of the key's mode are POSTed to it, signed (Standard Webhooks). Its signing secret is " +
			"shown by the API once, at creation, and kept in the state as a sensitive value; an imported endpoint has none. Import with the endpoint id.",
		Attributes: map[string]schema.Attribute{
			"id":  schema.StringAttribute{Computed: true, MarkdownDescription: "The endpoint id (`we_…`).", PlanModifiers: keep},
			"url": schema.StringAttribute{Required: true, MarkdownDescription: "A public `https` URL."},
			"events": schema.SetAttribute{
				ElementType: types.StringType, Required: true, Validators: []validator.Set{setvalidator.SizeAtLeast(1)},
				MarkdownDescription: "Event types to send, e.g. `operation.succeeded`, or `*` for all.",
			},
			"description": schema.StringAttribute{Optional: true, MarkdownDescription: "A note for people."},
			"enabled":     schema.BoolAttribute{Optional: true, Computed: true, Default: booldefault.StaticBool(true), MarkdownDescription: "False pauses deliveries."},
			"secret": schema.StringAttribute{
				Computed: true, Sensitive: true, PlanModifiers: keep,
				MarkdownDescription: "The signing secret (`whsec_…`), known only to the state that created the endpoint.",
			},
		},
	}
}

func (m webhookEndpointModel) body(ctx context.Context) map[string]any {
	var events []string
	m.Events.ElementsAs(ctx, &events, false)
	body := map[string]any{"url": m.URL.ValueString(), "events": events, "description": stringPointer(m.Description)}
	return body
}

func (m *webhookEndpointModel) absorb(e client.WebhookEndpoint) {
	m.ID = types.StringValue(e.ID)
	m.URL = types.StringValue(e.URL)
	m.Events = stringSet(e.Events)
	m.Description = optionalString(e.Description)
	m.Enabled = types.BoolValue(e.Enabled)
	if e.Secret != "" {
		m.Secret = types.StringValue(e.Secret)
	}
}

func (r *webhookEndpointResource) send(ctx context.Context, req client.Request, m *webhookEndpointModel) error {
	endpoint, err := client.Fetch[client.WebhookEndpoint](ctx, r.client, req)
	if err == nil {
		m.absorb(*endpoint)
	}
	return err
}

func (r *webhookEndpointResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan webhookEndpointModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	enabled := plan.Enabled.ValueBool()
	err := r.send(ctx, client.Request{Method: http.MethodPost, Path: r.client.OrgPath("webhook-endpoints"), Body: plan.body(ctx), IdempotencyKey: client.NewIdempotencyKey("webhook")}, &plan)
	if err == nil && !enabled {
		err = r.send(ctx, client.Request{Method: http.MethodPatch, Path: r.client.OrgPath("webhook-endpoints", plan.ID.ValueString()), Body: map[string]any{"enabled": false}}, &plan)
	}
	if err != nil {
		apiError(&resp.Diagnostics, "Creating the webhook endpoint", err)
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
}

func (r *webhookEndpointResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state webhookEndpointModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	err := r.send(ctx, client.Request{Method: http.MethodGet, Path: r.client.OrgPath("webhook-endpoints", state.ID.ValueString())}, &state)
	if client.IsNotFound(err) {
		resp.State.RemoveResource(ctx)
		return
	}
	if err != nil {
		apiError(&resp.Diagnostics, "Reading the webhook endpoint", err)
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, state)...)
}

func (r *webhookEndpointResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state webhookEndpointModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	body := plan.body(ctx)
	body["enabled"] = plan.Enabled.ValueBool()
	plan.Secret = state.Secret
	if err := r.send(ctx, client.Request{Method: http.MethodPatch, Path: r.client.OrgPath("webhook-endpoints", state.ID.ValueString()), Body: body}, &plan); err != nil {
		apiError(&resp.Diagnostics, "Changing the webhook endpoint", err)
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
}

func (r *webhookEndpointResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state webhookEndpointModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	removeIgnoringGone(ctx, r.client, client.Request{Method: http.MethodDelete, Path: r.client.OrgPath("webhook-endpoints", state.ID.ValueString())},
		&resp.Diagnostics, "Deleting the webhook endpoint")
}

func (r *webhookEndpointResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	resource.ImportStatePassthroughID(ctx, path.Root("id"), req, resp)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("secret"), types.StringNull())...)
}
