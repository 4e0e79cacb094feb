// Command kube-apiserver runs the upstream API server from the published k8s.io/kubernetes module.
//
// The builder (tests/realkube/gobuild.py) writes this module's go.mod beside this file: it requires
// k8s.io/kubernetes at the pinned release and points each staging module that upstream requires at
// v0.0.0 to the matching published v0.X.Y (upstream's own replace lines name ./staging paths, which
// a dependency's go.mod cannot use).
package main

import (
	"os"

	"k8s.io/component-base/cli"
	// Registered by upstream's main too: the JSON log format and the client-go / version metrics.
	_ "k8s.io/component-base/logs/json/register"
	_ "k8s.io/component-base/metrics/prometheus/clientgo"
	_ "k8s.io/component-base/metrics/prometheus/version"
	"k8s.io/kubernetes/cmd/kube-apiserver/app"
)

func main() {
	os.Exit(cli.Run(app.NewAPIServerCommand()))
}
