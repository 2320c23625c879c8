package provider

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/domain-service/terraform-provider-domainservice/internal/client"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/listplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// An e-mail forward (docs/api-guide.md, E-mail forwarding). The API has no update: any change
// replaces it (the address is refused for the moment between).
type emailForwardResource struct{ configured }

func newEmailForwardResource() resource.Resource { return &emailForwardResource{} }

var _ resource.ResourceWithImportState = &emailForwardResource{}

type emailForward struct {
	ID        string   `json:"id"`
	Domain    string   `json:"domain"`
	LocalPart string   `json:"local_part"`
	Address   string   `json:"address"`
	To        []string `json:"to"`
}

type emailForwardModel struct {
	ID        types.String   `tfsdk:"id"`
	Domain    types.String   `tfsdk:"domain"`
	LocalPart types.String   `tfsdk:"local_part"`
	To        []types.String `tfsdk:"to"`
	Address   types.String   `tfsdk:"address"`
}

func (r *emailForwardResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_email_forward"
}

func (r *emailForwardResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	replace := []planmodifier.String{stringplanmodifier.RequiresReplace()}
	resp.Schema = schema.Schema{
		MarkdownDescription: "Mail for an address of a domain forwarded to up to 10 addresses, with an SRS envelope sender. The domain's first " +
			"forward sets its MX, SPF and DMARC records (those it has none of); its last one destroyed takes them away. Import with `<domain>/<forward id>`.",
		Attributes: map[string]schema.Attribute{
			"id":         schema.StringAttribute{Computed: true, MarkdownDescription: "The forward's id (`emf_…`).", PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}},
			"domain":     schema.StringAttribute{Required: true, PlanModifiers: replace, MarkdownDescription: "The domain, e.g. `example.com`."},
			"local_part": schema.StringAttribute{Required: true, PlanModifiers: replace, MarkdownDescription: "`hello` for hello@example.com, or `*` for every address without a forward of its own (stored in lower case)."},
			"to": schema.ListAttribute{Required: true, ElementType: types.StringType, PlanModifiers: []planmodifier.List{listplanmodifier.RequiresReplace()},
				MarkdownDescription: "Where its mail goes: 1 to 10 addresses (stored in lower case)."},
			"address": schema.StringAttribute{Computed: true, MarkdownDescription: "The address mail is accepted for.", PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}},
		},
	}
}

func (m *emailForwardModel) absorb(f emailForward) {
	m.ID, m.Domain, m.LocalPart, m.Address = types.StringValue(f.ID), types.StringValue(f.Domain), types.StringValue(f.LocalPart), types.StringValue(f.Address)
	m.To = make([]types.String, len(f.To))
	for i, to := range f.To {
		m.To[i] = types.StringValue(to)
	}
}

func (r *emailForwardResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan emailForwardModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	to := make([]string, len(plan.To))
	for i, address := range plan.To {
		to[i] = address.ValueString()
	}
	forward, err := client.Fetch[emailForward](ctx, r.client, client.Request{
		Method: http.MethodPost, Path: r.client.OrgPath("domains", plan.Domain.ValueString(), "email-forwards"),
		Body: map[string]any{"local_part": plan.LocalPart.ValueString(), "to": to}, IdempotencyKey: client.NewIdempotencyKey("email-forward"),
	})
	if err != nil {
		apiError(&resp.Diagnostics, "Creating the e-mail forward", err)
		return
	}
	plan.absorb(*forward)
	resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
}

func (r *emailForwardResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state emailForwardModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	// A domain's forwards are listed whole (at most its plan's): the one is found among them.
	list, err := client.Fetch[struct {
		Data []emailForward `json:"data"`
	}](ctx, r.client, client.Request{Method: http.MethodGet, Path: r.client.OrgPath("domains", state.Domain.ValueString(), "email-forwards")})
	if client.IsNotFound(err) {
		resp.State.RemoveResource(ctx)
		return
	}
	if err != nil {
		apiError(&resp.Diagnostics, "Reading the e-mail forward", err)
		return
	}
	for _, forward := range list.Data {
		if forward.ID == state.ID.ValueString() {
			state.absorb(forward)
			resp.Diagnostics.Append(resp.State.Set(ctx, state)...)
			return
		}
	}
	resp.State.RemoveResource(ctx)
}

func (r *emailForwardResource) Update(_ context.Context, _ resource.UpdateRequest, resp *resource.UpdateResponse) {
	resp.Diagnostics.AddError("E-mail forwards are replaced, not changed", "Every attribute forces a new forward; this is a bug of the provider.")
}

func (r *emailForwardResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state emailForwardModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	_, err := r.client.Do(ctx, client.Request{Method: http.MethodDelete, Path: r.client.OrgPath("domains", state.Domain.ValueString(), "email-forwards", state.ID.ValueString())})
	if err != nil && !client.IsNotFound(err) {
		apiError(&resp.Diagnostics, "Deleting the e-mail forward", err)
	}
}

func (r *emailForwardResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	domain, id, ok := strings.Cut(req.ID, "/")
	if !ok || domain == "" || id == "" {
		resp.Diagnostics.AddError("Import id", fmt.Sprintf("Give <domain>/<forward id>, e.g. example.com/emf_123; got %q.", req.ID))
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("domain"), domain)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), id)...)
}
