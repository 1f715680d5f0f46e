module cmma-spec/essa-engine

go 1.21
