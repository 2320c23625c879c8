// Command terraform-provider-domainservice is the Terraform and OpenTofu provider of the domain
// service: domains, DNS, DNSSEC, contacts, webhook endpoints and API keys as resources.
package main

import (
	"context"
	"flag"
	"log"

	"github.com/domain-service/terraform-provider-domainservice/internal/provider"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
)

// The docs (docs/) are generated with tfplugindocs from OpenTofu's view of the schema: npm run terraform:docs.

// version is set by the release build (-ldflags "-X main.version=…").
var version = "dev"

func main() {
	var debug bool
	flag.BoolVar(&debug, "debug", false, "run with support for debuggers such as delve")
	flag.Parse()
	err := providerserver.Serve(context.Background(), provider.New(version), providerserver.ServeOpts{
		Address: provider.Address,
		Debug:   debug,
	})
	if err != nil {
		log.Fatal(err)
	}
}
