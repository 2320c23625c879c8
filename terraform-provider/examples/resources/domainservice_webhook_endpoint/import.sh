# The secret is shown once, at creation: an imported endpoint has none in its state.
tofu import domainservice_webhook_endpoint.ops we_3mXq8Lk2Jz9Pw
