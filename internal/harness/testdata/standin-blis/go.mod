module example.com/standin-blis

go 1.22
