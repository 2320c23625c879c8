resource "domainservice_dnssec" "example" {
  domain = "example.com"
}

output "ds" {
  value = domainservice_dnssec.example.ds_records
}
