resource "domainservice_dns_zone_records" "example" {
  domain = "example.com"
  records = [
    { type = "A", name = "@", content = "192.0.2.10" },
    { type = "AAAA", name = "@", content = "2001:db8::10" },
    { type = "CNAME", name = "www", content = "example.com" },
    { type = "MX", name = "@", content = "mail.example.net", priority = 10 },
    { type = "TXT", name = "@", content = "v=spf1 include:_spf.example.net -all", ttl = 300 },
    { type = "CAA", name = "@", content = "0 issue \"letsencrypt.org\"" },
  ]
}
