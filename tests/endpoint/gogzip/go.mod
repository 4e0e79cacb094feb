module gogzip

go 1.22
