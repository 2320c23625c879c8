# A domain is imported by its name.
tofu import domainservice_domain.site example.com
