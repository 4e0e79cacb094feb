// The Go ExternalDNS, built from its module through a main module of ours: v0.22.0's main package (the module
// root) does only this, and a main module of our own can carry the replace lines the build needs (see
// tests/differential/peer.py).
package main

import (
	_ "k8s.io/client-go/plugin/pkg/client/auth"

	"sigs.k8s.io/external-dns/controller"
)

func main() {
	controller.Execute()
}
