# Registers a test-mode domain, sets its records and signs it (DNSSEC). With a svc_test_… key
# nothing reaches a registrar and the balance is test money (top it up for free):
#
#   export DOMAIN_SERVICE_URL=http://127.0.0.1:8080 DOMAIN_SERVICE_ORG=org_… DOMAIN_SERVICE_API_KEY=svc_test_…
#   tofu plan -var domain=my-first-tofu.com && tofu apply -var domain=my-first-tofu.com
#
# With a locally built provider (a development override, as docs/terraform.md walks through) skip
# `tofu init`: it is not needed and fails without a registry to ask. With the provider installed
# from a registry or a filesystem mirror, run `tofu init` first.

terraform {
  required_providers {
    domainservice = {
      source = "registry.opentofu.org/domain-service/domainservice"
    }
  }
}

provider "domainservice" {}

variable "domain" {
  description = "A name to register in test mode (names ending in -taken are never available)"
  type        = string
  default     = "tofu-example.com"
}

data "domainservice_availability" "name" {
  name = var.domain
}

resource "domainservice_contact" "owner" {
  first_name  = "Ada"
  last_name   = "Lovelace"
  email       = "ada@example.com"
  phone       = "+442071234567"
  address1    = "12 St James's Square"
  city        = "London"
  postal_code = "SW1Y 4JH"
  country     = "GB"
}

resource "domainservice_domain" "site" {
  name                  = var.domain
  registrant_contact_id = domainservice_contact.owner.id
  years                 = 1
  max_price             = 2000 # cents; the plan fails if the registration costs more
  auto_renew            = true
}

resource "domainservice_dns_zone_records" "site" {
  domain = domainservice_domain.site.name
  records = [
    { type = "A", name = "@", content = "192.0.2.10" },
    { type = "AAAA", name = "@", content = "2001:db8::10" },
    { type = "CNAME", name = "www", content = var.domain },
    { type = "MX", name = "@", content = "mail.example.net", priority = 10 },
    { type = "TXT", name = "@", content = "v=spf1 include:_spf.example.net -all", ttl = 300 },
    { type = "CAA", name = "@", content = "0 issue \"letsencrypt.org\"" },
  ]
}

resource "domainservice_dnssec" "site" {
  domain = domainservice_domain.site.name
  # Sign once the records are in place.
  depends_on = [domainservice_dns_zone_records.site]
}

output "list_price_cents" {
  value = data.domainservice_availability.name.price
}

output "charged_cents" {
  value = domainservice_domain.site.price
}

output "expires_at" {
  value = domainservice_domain.site.expires_at
}

output "ds_records" {
  value = [for ds in domainservice_dnssec.site.ds_records : "${ds.key_tag} ${ds.algorithm} ${ds.digest_type} ${ds.digest}"]
}
