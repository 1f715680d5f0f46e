module essa-go

go 1.19
