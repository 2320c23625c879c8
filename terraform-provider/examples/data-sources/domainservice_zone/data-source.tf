# One request, however many records the zone has.
data "domainservice_zone" "site" {
  domain = "example.com"
}

resource "local_file" "zone" {
  filename = "example.com.zone"
  content  = data.domainservice_zone.site.zone_file
}
