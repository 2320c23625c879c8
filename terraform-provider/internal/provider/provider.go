// Package provider maps the domain service's API onto Terraform resources and data sources.
package provider

import (
	"context"
	"os"
	"strings"

	"github.com/domain-service/terraform-provider-domainservice/internal/client"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// Address is where the provider is published; dev_overrides in a CLI configuration name it too.
const Address = "registry.opentofu.org/domain-service/domainservice"

// Environment variables the provider block falls back to.
const (
	EnvAPIKey  = "DOMAIN_SERVICE_API_KEY"
	EnvBaseURL = "DOMAIN_SERVICE_URL"
	EnvOrg     = "DOMAIN_SERVICE_ORG"
)

type domainServiceProvider struct{ version string }

type providerModel struct {
	APIKey       types.String `tfsdk:"api_key"`
	BaseURL      types.String `tfsdk:"base_url"`
	Organization types.String `tfsdk:"organization"`
}

// New builds the provider for providerserver.Serve and for the acceptance tests.
func New(version string) func() provider.Provider {
	return func() provider.Provider { return &domainServiceProvider{version: version} }
}

func (p *domainServiceProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "domainservice"
	resp.Version = p.version
}

func (p *domainServiceProvider) Schema(_ context.Context, _ provider.SchemaRequest, resp *provider.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Manages domains, DNS records and zones, DNSSEC, contacts, webhook endpoints and API keys of the domain service. " +
			"A `svc_test_…` key works in test mode: registrations are synthetic and free to top up, nothing reaches a registrar.",
		Attributes: map[string]schema.Attribute{
			"api_key": schema.StringAttribute{
				MarkdownDescription: "An API key (`svc_live_…` or `svc_test_…`). Default: the `" + EnvAPIKey + "` environment variable.",
				Optional:            true,
				Sensitive:           true,
			},
			"base_url": schema.StringAttribute{
				MarkdownDescription: "The service's address, e.g. `https://domains.example.com` (the API is under `/api/v1`). Default: `" + EnvBaseURL + "`.",
				Optional:            true,
			},
			"organization": schema.StringAttribute{
				MarkdownDescription: "The organisation id (`org_…`) whose objects this provider manages. Default: `" + EnvOrg + "`.",
				Optional:            true,
			},
		},
	}
}

func (p *domainServiceProvider) Configure(ctx context.Context, req provider.ConfigureRequest, resp *provider.ConfigureResponse) {
	var config providerModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &config)...)
	if resp.Diagnostics.HasError() {
		return
	}
	setting := func(value types.String, env string, attribute string) string {
		if value.IsUnknown() {
			resp.Diagnostics.AddAttributeError(path.Root(attribute), "Unknown "+attribute,
				"The provider's "+attribute+" must be known when planning; set it to a literal or set "+env+".")
			return ""
		}
		if !value.IsNull() && value.ValueString() != "" {
			return value.ValueString()
		}
		return os.Getenv(env)
	}
	apiKey := setting(config.APIKey, EnvAPIKey, "api_key")
	baseURL := setting(config.BaseURL, EnvBaseURL, "base_url")
	org := setting(config.Organization, EnvOrg, "organization")
	if resp.Diagnostics.HasError() {
		return
	}
	missing := func(value, env, attribute, example string) {
		if value == "" {
			resp.Diagnostics.AddAttributeError(path.Root(attribute), "Missing "+attribute,
				"Set "+attribute+" in the provider block or the "+env+" environment variable ("+example+").")
		}
	}
	missing(apiKey, EnvAPIKey, "api_key", "an API key, svc_live_… or svc_test_…")
	missing(baseURL, EnvBaseURL, "base_url", "e.g. http://127.0.0.1:8080")
	missing(org, EnvOrg, "organization", "an organisation id, org_…")
	if resp.Diagnostics.HasError() {
		return
	}
	if !strings.HasPrefix(apiKey, "svc_live_") && !strings.HasPrefix(apiKey, "svc_test_") {
		resp.Diagnostics.AddAttributeError(path.Root("api_key"), "Not an API key",
			"The domain service's API keys start with svc_live_ or svc_test_.")
		return
	}
	c := client.New(baseURL, apiKey, org, "terraform-provider-domainservice/"+p.version)
	resp.ResourceData = c
	resp.DataSourceData = c
}

func (p *domainServiceProvider) Resources(_ context.Context) []func() resource.Resource {
	return []func() resource.Resource{
		newDomainResource,
		newDNSRecordResource,
		newDNSZoneRecordsResource,
		newDNSSECResource,
		newContactResource,
		newWebhookEndpointResource,
		newAPIKeyResource,
		newEmailForwardResource,
	}
}

func (p *domainServiceProvider) DataSources(_ context.Context) []func() datasource.DataSource {
	return []func() datasource.DataSource{
		newOrganizationDataSource,
		newAvailabilityDataSource,
		newDomainDataSource,
		newZoneDataSource,
		newDNSSECDSDataSource,
	}
}
