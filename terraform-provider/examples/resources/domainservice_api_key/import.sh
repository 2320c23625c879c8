# The secret is shown once, at creation: an imported key has none in its state.
tofu import domainservice_api_key.certificates key_7Hn2Qw9Xk4Lm
