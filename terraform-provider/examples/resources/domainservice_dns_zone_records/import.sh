# A zone's records are imported by the domain name.
tofu import domainservice_dns_zone_records.example example.com
