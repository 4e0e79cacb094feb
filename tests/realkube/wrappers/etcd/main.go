// Command etcd runs the upstream etcd server from the published go.etcd.io/etcd/server/v3 module.
//
// The builder (tests/realkube/gobuild.py) writes this module's go.mod beside this file; the server
// module's own replace lines (../api, ...) only apply inside etcd's repository, so `go install` of it
// is refused and a requiring module is the way to build it.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}
