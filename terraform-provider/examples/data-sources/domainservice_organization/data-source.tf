data "domainservice_organization" "this" {}

output "plan" {
  value = data.domainservice_organization.this.plan
}
