package provider

import (
	"context"
	"fmt"
	"net/http"

	"github.com/domain-service/terraform-provider-domainservice/internal/client"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

type domainResource struct{ configured }

func newDomainResource() resource.Resource { return &domainResource{} }

var (
	_ resource.ResourceWithModifyPlan     = &domainResource{}
	_ resource.ResourceWithImportState    = &domainResource{}
	_ resource.ResourceWithValidateConfig = &domainResource{}
)

type domainModel struct {
	ID                  types.String `tfsdk:"id"`
	Name                types.String `tfsdk:"name"`
	RegistrantContactID types.String `tfsdk:"registrant_contact_id"`
	AdminContactID      types.String `tfsdk:"admin_contact_id"`
	TechContactID       types.String `tfsdk:"tech_contact_id"`
	AuthCode            types.String `tfsdk:"auth_code"`
	Years               types.Int64  `tfsdk:"years"`
	MaxPrice            types.Int64  `tfsdk:"max_price"`
	AutoRenew           types.Bool   `tfsdk:"auto_renew"`
	Locked              types.Bool   `tfsdk:"locked"`
	Nameservers         types.List   `tfsdk:"nameservers"`
	WhoisPrivacy        types.Bool   `tfsdk:"whois_privacy"`
	OnDestroy           types.String `tfsdk:"on_destroy"`
	Status              types.String `tfsdk:"status"`
	ExpiresAt           types.String `tfsdk:"expires_at"`
	Price               types.Int64  `tfsdk:"price"`
	Livemode            types.Bool   `tfsdk:"livemode"`
}

const (
	onDestroyRelease   = "release"
	onDestroyLetExpire = "let_expire"
)

func (r *domainResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_domain"
}

func (r *domainResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	keep := []planmodifier.String{stringplanmodifier.UseStateForUnknown()}
	resp.Schema = schema.Schema{
		MarkdownDescription: "A domain registered (or transferred in) through the service. The plan runs every check of the real request " +
			"(`Dry-Run: true`): it shows the `price` and fails at once on short funds, a spending limit or `max_price`. Raising `years` renews. " +
			"Destroying releases the domain from Terraform's management and leaves the registration as it is, unless `on_destroy` asks otherwise.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{Computed: true, MarkdownDescription: "The domain name.", PlanModifiers: keep},
			"name": schema.StringAttribute{
				Required: true, MarkdownDescription: "The domain name, e.g. `example.com`.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
			},
			"registrant_contact_id": schema.StringAttribute{
				Required: true, MarkdownDescription: "The registrant contact (`ct_…`), e.g. `domainservice_contact.owner.id`. Set at registration; changing it later is refused.",
			},
			"admin_contact_id": schema.StringAttribute{Optional: true, MarkdownDescription: "Administrative contact, at registration."},
			"tech_contact_id":  schema.StringAttribute{Optional: true, MarkdownDescription: "Technical contact, at registration."},
			"auth_code": schema.StringAttribute{
				Optional: true, Sensitive: true,
				MarkdownDescription: "Transfer the domain in with this authorisation code from its current registrar instead of registering it.",
			},
			"years": schema.Int64Attribute{
				Optional: true, Computed: true, Default: int64default.StaticInt64(1),
				Validators:          []validator.Int64{int64validator.Between(1, 10)},
				MarkdownDescription: "Years bought: the registration's term at first; raising it renews for the difference (it cannot go down). Default 1.",
			},
			"max_price": schema.Int64Attribute{
				Optional: true, Validators: []validator.Int64{int64validator.AtLeast(0)},
				MarkdownDescription: "The most a registration, transfer or renewal may charge, in minor units (cents); a higher price fails the plan (`PRICE_EXCEEDS_MAX`).",
			},
			"auto_renew": schema.BoolAttribute{
				Optional: true, Computed: true, PlanModifiers: []planmodifier.Bool{boolKeep()},
				MarkdownDescription: "Renew for a year from the balance 30 days before expiry.",
			},
			"locked": schema.BoolAttribute{
				Optional: true, Computed: true, PlanModifiers: []planmodifier.Bool{boolKeep()},
				MarkdownDescription: "The registry transfer lock.",
			},
			"nameservers": schema.ListAttribute{
				ElementType: types.StringType, Optional: true, Computed: true,
				Validators:          []validator.List{listvalidator.SizeBetween(2, 13)},
				PlanModifiers:       []planmodifier.List{listKeep()},
				MarkdownDescription: "Name servers (2–13); the service's own by default.",
			},
			"whois_privacy": schema.BoolAttribute{
				Optional: true, Computed: true, PlanModifiers: []planmodifier.Bool{boolKeep()},
				MarkdownDescription: "Hide the registrant in public WHOIS behind the registrar's proxy details.",
			},
			"on_destroy": schema.StringAttribute{
				Optional: true, Computed: true, Default: stringdefault.StaticString(onDestroyRelease),
				Validators: []validator.String{stringvalidator.OneOf(onDestroyRelease, onDestroyLetExpire)},
				MarkdownDescription: "What destroying does. `release` (default): Terraform stops managing the domain; it stays registered, with its settings, " +
					"records and auto-renewal. `let_expire`: auto-renewal is turned off first, so the registration ends at `expires_at` and the name is " +
					"deleted after the grace period, with its records. A registration is never deleted at once: registries do not refund it.",
			},
			"status":     schema.StringAttribute{Computed: true, MarkdownDescription: "`active`, `expired`, …", PlanModifiers: keep},
			"expires_at": schema.StringAttribute{Computed: true, MarkdownDescription: "When the registration ends (RFC 3339)."},
			"price": schema.Int64Attribute{
				Computed:            true,
				MarkdownDescription: "The price of the registration, transfer or renewal the plan makes, in minor units (cents, USD), as the service quoted it; else the last one.",
			},
			"livemode": schema.BoolAttribute{Computed: true, MarkdownDescription: "False for a test-mode domain.", PlanModifiers: []planmodifier.Bool{boolKeep()}},
		},
	}
}

func (r *domainResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var config domainModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &config)...)
	if !config.AuthCode.IsNull() && !config.Nameservers.IsNull() {
		// A transfer keeps the name servers it comes with; they change once it is done.
		resp.Diagnostics.AddAttributeWarning(path.Root("nameservers"), "Name servers after the transfer",
			"A transfer keeps the domain's name servers; the ones given here are set once the transfer has completed.")
	}
}

func (r *domainResource) registerBody(ctx context.Context, plan domainModel) map[string]any {
	body := map[string]any{
		"name":                  plan.Name.ValueString(),
		"registrant_contact_id": plan.RegistrantContactID.ValueString(),
	}
	if !plan.MaxPrice.IsNull() && !plan.MaxPrice.IsUnknown() {
		body["max_price"] = plan.MaxPrice.ValueInt64()
	}
	if known(plan.WhoisPrivacy) && plan.WhoisPrivacy.ValueBool() {
		body["whois_privacy"] = true
	}
	if !plan.AuthCode.IsNull() {
		body["auth_code"] = plan.AuthCode.ValueString()
		return body
	}
	body["years"] = plan.Years.ValueInt64()
	for attribute, value := range map[string]types.String{"admin_contact_id": plan.AdminContactID, "tech_contact_id": plan.TechContactID} {
		if !value.IsNull() && !value.IsUnknown() {
			body[attribute] = value.ValueString()
		}
	}
	if known(plan.AutoRenew) {
		body["auto_renew"] = plan.AutoRenew.ValueBool()
	}
	if !plan.Nameservers.IsNull() && !plan.Nameservers.IsUnknown() {
		var ns []string
		plan.Nameservers.ElementsAs(ctx, &ns, false)
		body["nameservers"] = ns
	}
	return body
}

func (r *domainResource) paidPath(plan domainModel) string {
	if !plan.AuthCode.IsNull() {
		return r.client.OrgPath("domains", "transfers")
	}
	return r.client.OrgPath("domains")
}

// quote is the API's dry run of the registration or transfer: every check, and the price.
func (r *domainResource) quote(ctx context.Context, plan domainModel) (*client.DryRun, error) {
	return client.Fetch[client.DryRun](ctx, r.client, client.Request{Method: http.MethodPost, Path: r.paidPath(plan), Body: r.registerBody(ctx, plan), DryRun: true})
}

// ModifyPlan quotes what the apply would charge with the API's Dry-Run, so the plan shows the price
// and fails now on funds, spending limits, max_price or an unavailable name.
func (r *domainResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || r.client == nil {
		return // destroying, or validating without a provider
	}
	var plan domainModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if req.State.Raw.IsNull() {
		r.quoteCreate(ctx, &plan, resp)
	} else {
		var state domainModel
		resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
		if resp.Diagnostics.HasError() {
			return
		}
		r.quoteUpdate(ctx, state, &plan, resp)
	}
	if !resp.Diagnostics.HasError() {
		resp.Diagnostics.Append(resp.Plan.Set(ctx, plan)...)
	}
}

func (r *domainResource) quoteCreate(ctx context.Context, plan *domainModel, resp *resource.ModifyPlanResponse) {
	if plan.Name.IsUnknown() || plan.Years.IsUnknown() || plan.AuthCode.IsUnknown() || plan.MaxPrice.IsUnknown() {
		plan.Price = types.Int64Unknown()
		return
	}
	if !plan.RegistrantContactID.IsUnknown() {
		quote, err := r.quote(ctx, *plan)
		if err != nil {
			apiError(&resp.Diagnostics, fmt.Sprintf("%s cannot be registered as planned", plan.Name.ValueString()), err)
			return
		}
		plan.Price = types.Int64Value(quote.Price.Amount)
		return
	}
	// The contact is made by this same apply, so the full dry run waits for it: quote the name now.
	if !plan.AuthCode.IsNull() {
		plan.Price = types.Int64Unknown()
		return
	}
	answer, err := checkAvailability(ctx, r.client, plan.Name.ValueString())
	if err != nil {
		apiError(&resp.Diagnostics, "Checking "+plan.Name.ValueString(), err)
		return
	}
	if !answer.Available || answer.Price == nil {
		resp.Diagnostics.AddAttributeError(path.Root("name"), "Not available", answer.Name+" is not available for registration.")
		return
	}
	price := answer.Price.Amount * plan.Years.ValueInt64()
	if !plan.MaxPrice.IsNull() && price > plan.MaxPrice.ValueInt64() {
		resp.Diagnostics.AddAttributeError(path.Root("max_price"), "Price above max_price",
			fmt.Sprintf("%s costs %d for %d year(s), more than max_price %d.", answer.Name, price, plan.Years.ValueInt64(), plan.MaxPrice.ValueInt64()))
		return
	}
	plan.Price = types.Int64Value(price)
}

func (r *domainResource) quoteUpdate(ctx context.Context, state domainModel, plan *domainModel, resp *resource.ModifyPlanResponse) {
	for attribute, pair := range map[string][2]types.String{
		"registrant_contact_id": {state.RegistrantContactID, plan.RegistrantContactID},
		"admin_contact_id":      {state.AdminContactID, plan.AdminContactID},
		"tech_contact_id":       {state.TechContactID, plan.TechContactID},
	} {
		if !pair[0].IsNull() && !pair[1].IsUnknown() && !pair[0].Equal(pair[1]) {
			resp.Diagnostics.AddAttributeError(path.Root(attribute), "Contacts are set at registration",
				"The service does not change a registered domain's "+attribute+"; edit the contact itself (domainservice_contact) instead.")
		}
	}
	plan.ExpiresAt = state.ExpiresAt
	plan.Price = state.Price
	if state.Years.IsNull() || plan.Years.IsUnknown() {
		return // imported: `years` starts counting from its first configured value
	}
	more := plan.Years.ValueInt64() - state.Years.ValueInt64()
	if more < 0 {
		resp.Diagnostics.AddAttributeError(path.Root("years"), "Years cannot go down",
			fmt.Sprintf("years is %d; a registration cannot be shortened. Raise it to renew.", state.Years.ValueInt64()))
		return
	}
	if more == 0 {
		return
	}
	plan.ExpiresAt = types.StringUnknown()
	body := map[string]any{"years": more}
	if !plan.MaxPrice.IsNull() && !plan.MaxPrice.IsUnknown() {
		body["max_price"] = plan.MaxPrice.ValueInt64()
	}
	quote, err := client.Fetch[client.DryRun](ctx, r.client, client.Request{Method: http.MethodPost, Path: r.client.OrgPath("domains", plan.Name.ValueString(), "renew"), Body: body, DryRun: true})
	if err != nil {
		apiError(&resp.Diagnostics, fmt.Sprintf("%s cannot be renewed for %d year(s)", plan.Name.ValueString(), more), err)
		return
	}
	plan.Price = types.Int64Value(quote.Price.Amount)
}

func (r *domainResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan domainModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	name := plan.Name.ValueString()
	if plan.Price.IsUnknown() {
		// Not quoted at plan time (the contact was made by this apply): quoted now, before anything is charged.
		quote, err := r.quote(ctx, plan)
		if err != nil {
			apiError(&resp.Diagnostics, fmt.Sprintf("%s cannot be registered as planned", name), err)
			return
		}
		plan.Price = types.Int64Value(quote.Price.Amount)
	}
	_, err := r.client.RunOperation(ctx, client.Request{
		Method: http.MethodPost, Path: r.paidPath(plan), Body: r.registerBody(ctx, plan),
		IdempotencyKey: client.NewIdempotencyKey("domain"),
	})
	if err != nil {
		apiError(&resp.Diagnostics, "Registering "+name, err)
		return
	}
	domain, err := r.get(ctx, name)
	if err != nil {
		apiError(&resp.Diagnostics, "Reading "+name, err)
		return
	}
	// What registration does not take (a transfer takes none of them) is set once the domain is ours.
	if domain, err = r.applySettings(ctx, plan, domain); err != nil {
		apiError(&resp.Diagnostics, "Changing the settings of "+name, err)
	}
	price := plan.Price
	r.setState(ctx, &plan, domain)
	plan.Price = price
	resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
}

// applySettings PATCHes the settings the plan gives that the domain does not have yet.
func (r *domainResource) applySettings(ctx context.Context, plan domainModel, domain *client.Domain) (*client.Domain, error) {
	changes := map[string]any{}
	if known(plan.AutoRenew) && plan.AutoRenew.ValueBool() != domain.AutoRenew {
		changes["auto_renew"] = plan.AutoRenew.ValueBool()
	}
	if known(plan.Locked) && plan.Locked.ValueBool() != domain.Locked {
		changes["locked"] = plan.Locked.ValueBool()
	}
	if known(plan.WhoisPrivacy) && plan.WhoisPrivacy.ValueBool() != domain.WhoisPrivacy {
		changes["whois_privacy"] = plan.WhoisPrivacy.ValueBool()
	}
	if !plan.Nameservers.IsNull() && !plan.Nameservers.IsUnknown() {
		var ns []string
		plan.Nameservers.ElementsAs(ctx, &ns, false)
		if !sameStrings(ns, domain.Nameservers) {
			changes["nameservers"] = ns
		}
	}
	if len(changes) == 0 {
		return domain, nil
	}
	changed, err := client.Fetch[client.Domain](ctx, r.client, client.Request{Method: http.MethodPatch, Path: r.client.OrgPath("domains", domain.Name), Body: changes})
	if err != nil {
		return domain, err
	}
	return changed, nil
}

func (r *domainResource) get(ctx context.Context, name string) (*client.Domain, error) {
	return client.Fetch[client.Domain](ctx, r.client, client.Request{Method: http.MethodGet, Path: r.client.OrgPath("domains", name)})
}

func (r *domainResource) setState(ctx context.Context, m *domainModel, d *client.Domain) {
	m.ID = types.StringValue(d.Name)
	m.Name = types.StringValue(d.Name)
	m.Status = types.StringValue(d.Status)
	m.ExpiresAt = optionalString(d.ExpiresAt)
	m.AutoRenew = types.BoolValue(d.AutoRenew)
	m.Locked = types.BoolValue(d.Locked)
	m.WhoisPrivacy = types.BoolValue(d.WhoisPrivacy)
	m.Livemode = types.BoolValue(d.Livemode)
	m.RegistrantContactID = types.StringValue(d.RegistrantContactID)
	if d.AdminContactID != nil || !m.AdminContactID.IsNull() {
		m.AdminContactID = optionalString(d.AdminContactID)
	}
	if d.TechContactID != nil || !m.TechContactID.IsNull() {
		m.TechContactID = optionalString(d.TechContactID)
	}
	m.Nameservers = stringList(ctx, d.Nameservers)
}

func (r *domainResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state domainModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	domain, err := r.get(ctx, state.Name.ValueString())
	if client.IsNotFound(err) || (err == nil && (domain.Status == "deleted" || domain.Status == "failed")) {
		resp.State.RemoveResource(ctx)
		return
	}
	if err != nil {
		apiError(&resp.Diagnostics, "Reading "+state.Name.ValueString(), err)
		return
	}
	r.setState(ctx, &state, domain)
	resp.Diagnostics.Append(resp.State.Set(ctx, state)...)
}

func (r *domainResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state domainModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	name := state.Name.ValueString()
	if !state.Years.IsNull() && plan.Years.ValueInt64() > state.Years.ValueInt64() {
		if err := r.renew(ctx, plan, plan.Years.ValueInt64()-state.Years.ValueInt64()); err != nil {
			apiError(&resp.Diagnostics, "Renewing "+name, err)
			return
		}
	}
	domain, err := r.get(ctx, name)
	if err == nil {
		domain, err = r.applySettings(ctx, plan, domain)
	}
	if err != nil {
		apiError(&resp.Diagnostics, "Changing "+name, err)
		return
	}
	price := plan.Price
	r.setState(ctx, &plan, domain)
	plan.Price = price
	resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
}

func (r *domainResource) renew(ctx context.Context, plan domainModel, years int64) error {
	body := map[string]any{"years": years}
	if !plan.MaxPrice.IsNull() {
		body["max_price"] = plan.MaxPrice.ValueInt64()
	}
	_, err := r.client.RunOperation(ctx, client.Request{
		Method: http.MethodPost, Path: r.client.OrgPath("domains", plan.Name.ValueString(), "renew"), Body: body,
		IdempotencyKey: client.NewIdempotencyKey("renew"),
	})
	return err
}

func (r *domainResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state domainModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() || state.OnDestroy.ValueString() != onDestroyLetExpire {
		return // released: the registration stays as it is, outside Terraform
	}
	removeIgnoringGone(ctx, r.client, client.Request{Method: http.MethodPatch, Path: r.client.OrgPath("domains", state.Name.ValueString()), Body: map[string]any{"auto_renew": false}},
		&resp.Diagnostics, "Turning auto-renewal off for "+state.Name.ValueString())
}

func (r *domainResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("name"), req.ID)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), req.ID)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("on_destroy"), onDestroyRelease)...)
	// `years` stays null: it starts counting from the value the configuration first gives.
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("years"), types.Int64Null())...)
}
