resource "domainservice_contact" "owner" {
  first_name   = "Ada"
  last_name    = "Lovelace"
  organization = "Analytical Engines Ltd"
  email        = "ada@example.com"
  phone        = "+442071234567"
  address1     = "12 St James's Square"
  city         = "London"
  postal_code  = "SW1Y 4JH"
  country      = "GB"
}
