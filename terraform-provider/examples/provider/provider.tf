terraform {
  required_providers {
    domainservice = {
      source = "registry.opentofu.org/domain-service/domainservice"
    }
  }
}

# The key, address and organisation may also come from DOMAIN_SERVICE_API_KEY,
# DOMAIN_SERVICE_URL and DOMAIN_SERVICE_ORG.
provider "domainservice" {
  base_url     = "https://domains.example.com"
  organization = "org_4vJ1kXo9Qx2m8ZtN"
  api_key      = var.domain_service_api_key
}

variable "domain_service_api_key" {
  type      = string
  sensitive = true
}
