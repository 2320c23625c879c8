data "domainservice_availability" "name" {
  name = "example.com"
}

output "price_cents" {
  value = data.domainservice_availability.name.available ? data.domainservice_availability.name.price : null
}
