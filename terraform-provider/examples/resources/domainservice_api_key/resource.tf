# A narrow key for a certificate job: DNS only, on one domain.
resource "domainservice_api_key" "certificates" {
  name            = "certificate renewals"
  scopes          = ["dns:read", "dns:write"]
  allowed_domains = ["example.com"]
}

output "certificates_key" {
  value     = domainservice_api_key.certificates.key
  sensitive = true
}
