resource "domainservice_dns_record" "www" {
  domain  = "example.com"
  type    = "CNAME"
  name    = "www"
  content = "example.net"
  ttl     = 300
}

resource "domainservice_dns_record" "mail" {
  domain   = "example.com"
  type     = "MX"
  name     = "@"
  content  = "mail.example.net"
  priority = 10
}
