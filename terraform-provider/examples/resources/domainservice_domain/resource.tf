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
  name                  = "example.com"
  registrant_contact_id = domainservice_contact.owner.id
  years                 = 2    # raise it later to renew
  max_price             = 3000 # cents: the plan fails above it
  auto_renew            = true
  whois_privacy         = true
  nameservers           = ["ns1.example.net", "ns2.example.net"]
}

# A domain transferred in from another registrar.
resource "domainservice_domain" "moved" {
  name                  = "example.org"
  registrant_contact_id = domainservice_contact.owner.id
  auth_code             = var.example_org_auth_code
  on_destroy            = "let_expire"
}

variable "example_org_auth_code" {
  type      = string
  sensitive = true
}
