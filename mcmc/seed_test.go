package mcmc

import (
	"os"
	"strconv"
)

var testSeed = func() uint64 {
	s, _ := strconv.ParseUint(os.Getenv("MCMC_SEED"), 10, 64)
	return 7 + s
}()
