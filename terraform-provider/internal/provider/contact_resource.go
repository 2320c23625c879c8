package provider

import (
	"context"
	"net/http"

	"github.com/domain-service/terraform-provider-domainservice/internal/client"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

type contactResource struct{ configured }

func newContactResource() resource.Resource { return &contactResource{} }

var _ resource.ResourceWithImportState = &contactResource{}

type contactModel struct {
	ID           types.String `tfsdk:"id"`
	FirstName    types.String `tfsdk:"first_name"`
	LastName     types.String `tfsdk:"last_name"`
	Organization types.String `tfsdk:"organization"`
	Email        types.String `tfsdk:"email"`
	Phone        types.String `tfsdk:"phone"`
	Address1     types.String `tfsdk:"address1"`
	Address2     types.String `tfsdk:"address2"`
	City         types.String `tfsdk:"city"`
	State        types.String `tfsdk:"state"`
	PostalCode   types.String `tfsdk:"postal_code"`
	Country      types.String `tfsdk:"country"`
	Version      types.Int64  `tfsdk:"version"`
}

func (r *contactResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_contact"
}

func (r *contactResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	required := func(description string) schema.StringAttribute {
		return schema.StringAttribute{Required: true, MarkdownDescription: description}
	}
	optional := func(description string) schema.StringAttribute {
		return schema.StringAttribute{Optional: true, MarkdownDescription: description}
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "A registrant (or admin, tech) contact. Changes reach the registrar for the domains using it. Destroying a contact a " +
			"domain still uses (a domain released on destroy keeps its contacts) leaves it in place with a warning. Import with the contact id.",
		Attributes: map[string]schema.Attribute{
			"id":           schema.StringAttribute{Computed: true, MarkdownDescription: "The contact id (`ct_…`).", PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}},
			"first_name":   required("First name."),
			"last_name":    required("Last name."),
			"organization": optional("Organisation name."),
			"email":        required("E-mail address."),
			"phone":        required("E.164 phone number, e.g. `+14155550100`."),
			"address1":     required("Street address."),
			"address2":     optional("Second address line."),
			"city":         required("City."),
			"state":        optional("State or region."),
			"postal_code":  required("Postal code."),
			"country":      required("ISO 3166-1 alpha-2 country code, e.g. `GB`."),
			"version":      schema.Int64Attribute{Computed: true, MarkdownDescription: "Goes up by one with each change; sent as `If-Match`."},
		},
	}
}

func (m contactModel) body() map[string]any {
	return map[string]any{
		"first_name": m.FirstName.ValueString(), "last_name": m.LastName.ValueString(), "organization": stringPointer(m.Organization),
		"email": m.Email.ValueString(), "phone": m.Phone.ValueString(), "address1": m.Address1.ValueString(), "address2": stringPointer(m.Address2),
		"city": m.City.ValueString(), "state": stringPointer(m.State), "postal_code": m.PostalCode.ValueString(), "country": m.Country.ValueString(),
	}
}

func (m *contactModel) absorb(c client.Contact) {
	m.ID = types.StringValue(c.ID)
	m.FirstName, m.LastName, m.Email = types.StringValue(c.FirstName), types.StringValue(c.LastName), types.StringValue(c.Email)
	m.Phone, m.Address1, m.City = types.StringValue(c.Phone), types.StringValue(c.Address1), types.StringValue(c.City)
	m.PostalCode, m.Country = types.StringValue(c.PostalCode), types.StringValue(c.Country)
	m.Organization, m.Address2, m.State = optionalString(c.Organization), optionalString(c.Address2), optionalString(c.State)
	m.Version = types.Int64Value(c.Version)
}

func (r *contactResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan contactModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	contact, err := client.Fetch[client.Contact](ctx, r.client, client.Request{Method: http.MethodPost, Path: r.client.OrgPath("contacts"), Body: plan.body(), IdempotencyKey: client.NewIdempotencyKey("contact")})
	if err != nil {
		apiError(&resp.Diagnostics, "Creating the contact", err)
		return
	}
	plan.absorb(*contact)
	resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
}

func (r *contactResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state contactModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	contact, err := client.Fetch[client.Contact](ctx, r.client, client.Request{Method: http.MethodGet, Path: r.client.OrgPath("contacts", state.ID.ValueString())})
	if client.IsNotFound(err) {
		resp.State.RemoveResource(ctx)
		return
	}
	if err != nil {
		apiError(&resp.Diagnostics, "Reading the contact", err)
		return
	}
	state.absorb(*contact)
	resp.Diagnostics.Append(resp.State.Set(ctx, state)...)
}

func (r *contactResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state contactModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	contact, err := client.Fetch[client.Contact](ctx, r.client, client.Request{
		Method: http.MethodPatch, Path: r.client.OrgPath("contacts", state.ID.ValueString()), Body: plan.body(), IfMatch: etag(state.Version),
	})
	if err != nil {
		apiError(&resp.Diagnostics, "Changing the contact", err)
		return
	}
	plan.absorb(*contact)
	resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
}

func (r *contactResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state contactModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	_, err := r.client.Do(ctx, client.Request{Method: http.MethodDelete, Path: r.client.OrgPath("contacts", state.ID.ValueString())})
	if client.HasCode(err, "CONTACT_IN_USE") {
		// A domain released from Terraform (on_destroy = "release") still has this registrant: the
		// contact stays with it, released too, rather than failing the destroy.
		resp.Diagnostics.AddWarning("Contact kept",
			"Contact "+state.ID.ValueString()+" is still used by a domain (one released from Terraform keeps its contacts), so it stays; Terraform no longer manages it.")
		return
	}
	if err != nil && !client.IsNotFound(err) {
		apiError(&resp.Diagnostics, "Deleting the contact", err)
	}
}

func (r *contactResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	resource.ImportStatePassthroughID(ctx, path.Root("id"), req, resp)
}
