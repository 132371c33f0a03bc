module muster.dev/clients/go

go 1.19
