tofu import domainservice_dnssec.example example.com
