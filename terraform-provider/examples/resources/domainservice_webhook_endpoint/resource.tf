resource "domainservice_webhook_endpoint" "ops" {
  url         = "https://hooks.example.com/domain-service"
  events      = ["operation.succeeded", "operation.failed", "domain.expiring"]
  description = "on-call channel"
}

# Give the receiver its signing secret, e.g. through a secrets manager.
output "webhook_secret" {
  value     = domainservice_webhook_endpoint.ops.secret
  sensitive = true
}
