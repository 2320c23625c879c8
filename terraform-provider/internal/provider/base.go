package provider

import (
	"context"
	"errors"
	"fmt"

	"github.com/domain-service/terraform-provider-domainservice/internal/client"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
)

// configured holds the client every resource and data source gets from the provider.
type configured struct{ client *client.Client }

func (c *configured) configureWith(data any, diags *diag.Diagnostics) {
	if data == nil {
		return // the provider is not configured yet (validation)
	}
	cl, ok := data.(*client.Client)
	if !ok {
		diags.AddError("Unexpected provider data", fmt.Sprintf("expected *client.Client, got %T", data))
		return
	}
	c.client = cl
}

func (c *configured) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	c.configureWith(req.ProviderData, &resp.Diagnostics)
}

// configuredSource is configured for data sources (their Configure takes other request types).
type configuredSource struct{ client *client.Client }

func (c *configuredSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	(&configured{}).configureWith(req.ProviderData, &resp.Diagnostics)
	if cl, ok := req.ProviderData.(*client.Client); ok {
		c.client = cl
	}
}

// apiError adds a diagnostic for a failed call, with the API's code and request id.
func apiError(diags *diag.Diagnostics, summary string, err error) {
	var apiErr *client.APIError
	if errors.As(err, &apiErr) {
		detail := apiErr.Detail
		if apiErr.Code != "" {
			detail = apiErr.Code + ": " + detail
		}
		if apiErr.RequestID != "" {
			detail += "\n\nRequest id (quote it when asking for help): " + apiErr.RequestID
		}
		diags.AddError(summary, detail)
		return
	}
	diags.AddError(summary, err.Error())
}

// removeIgnoringGone sends a delete (or a last change) for a destroy: an object already gone is fine.
func removeIgnoringGone(ctx context.Context, c *client.Client, req client.Request, diags *diag.Diagnostics, summary string) {
	if _, err := c.Do(ctx, req); err != nil && !client.IsNotFound(err) {
		apiError(diags, summary, err)
	}
}

func asAPIError(err error, target **client.APIError) bool { return errors.As(err, target) }
