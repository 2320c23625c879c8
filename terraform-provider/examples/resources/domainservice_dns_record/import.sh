# A record is imported by its domain and id.
tofu import domainservice_dns_record.www example.com/rec_5Jq2Lk8Wm3Xn
