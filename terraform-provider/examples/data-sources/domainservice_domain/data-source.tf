data "domainservice_domain" "site" {
  name = "example.com"
}

output "expires_at" {
  value = data.domainservice_domain.site.expires_at
}
