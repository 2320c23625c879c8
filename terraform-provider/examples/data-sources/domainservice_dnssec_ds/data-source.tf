# The DS of a signed zone, e.g. to publish at a parent zone hosted elsewhere.
data "domainservice_dnssec_ds" "site" {
  domain = "example.com"
}

output "ds" {
  value = [for ds in data.domainservice_dnssec_ds.site.ds_records : "${ds.key_tag} ${ds.algorithm} ${ds.digest_type} ${ds.digest}"]
}
