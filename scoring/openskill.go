package scoring

import "math"

// This file rates players across plays: OpenSkill, the Bayesian approximation
// of Weng and Lin ("A Bayesian Approximation Method for Online Ranking",
// JMLR 12, 2011) with the Plackett–Luce model (Algorithm 1 of the paper),
// which suits free-for-all games of any number of players and ranks ties
// together. It follows openskill.js and openskill.py, the reference
// implementations, so that a rating here can be checked against theirs;
// every player is a team of one.

// Rating is one player's skill belief: a normal distribution whose mean Mu
// is the estimated skill and whose standard deviation Sigma is the
// uncertainty about it.
type Rating struct {
	Mu    float64 `json:"mu"`
	Sigma float64 `json:"sigma"`
}

// Ordinal is the conservative skill estimate mu − 3σ that leaderboards sort
// by: the true skill is above it with about 99.7% probability, so a newcomer
// starts at 0 and climbs as plays make the estimate surer, instead of topping
// the board after one lucky win.
func (r Rating) Ordinal() float64 {
	return r.Mu - 3*r.Sigma
}

// OpenSkill holds the parameters of the Plackett–Luce rating model.
type OpenSkill struct {
	// Mu and Sigma make a new player's rating.
	Mu, Sigma float64
	// Beta is the spread of one play's performance around a player's skill:
	// the larger it is, the more luck the model grants a game.
	Beta float64
	// Kappa is the least fraction of its variance a rating keeps after one
	// play, so that sigma stays positive however surprising a result.
	Kappa float64
	// Tau is added (in quadrature) to every sigma before a play, so that
	// ratings keep moving as players change; 0 lets sigma only shrink.
	Tau float64
}

// DefaultOpenSkill returns the reference implementations' parameters
// (mu 25, sigma 25/3, beta 25/6, kappa 0.0001) except Tau, which is 0 where
// they use 25/300: sigma then never grows, so an outright winner's
// conservative estimate always rises. A Tau of 25.0/300 restores the
// references' drift, which keeps the ratings of long-time players mobile at
// the cost of that guarantee.
func DefaultOpenSkill() OpenSkill {
	return OpenSkill{Mu: 25, Sigma: 25.0 / 3, Beta: 25.0 / 6, Kappa: 0.0001, Tau: 0}
}

// NewRating is the rating of a player who has not played yet under
// DefaultOpenSkill.
func NewRating() Rating {
	return DefaultOpenSkill().NewRating()
}

// RatePlackettLuce rates one free-for-all play under DefaultOpenSkill; see
// OpenSkill.RatePlackettLuce.
func RatePlackettLuce(ratings []Rating, ranks []int) []Rating {
	return DefaultOpenSkill().RatePlackettLuce(ratings, ranks)
}

// NewRating is the rating of a player who has not played yet.
func (o OpenSkill) NewRating() Rating {
	return Rating{Mu: o.Mu, Sigma: o.Sigma}
}

// RatePlackettLuce returns the ratings after one play, in the order given.
// ranks[i] is the place of the player rated ratings[i]: lower is better, equal
// ranks are a tie, and only their order matters (1, 3, 3 rates as 1, 2, 2).
// The input is not modified. A play of fewer than two players is no contest
// and leaves ratings unchanged. It panics if the slices differ in length,
// which is a caller's bug.
//
// The work is quadratic in the number of players, with no sorting and no
// maps, so the result depends on the ratings and ranks only: listing the
// players in another order permutes the output alike.
func (o OpenSkill) RatePlackettLuce(ratings []Rating, ranks []int) []Rating {
	if len(ratings) != len(ranks) {
		panic("scoring: RatePlackettLuce: ratings and ranks differ in length")
	}
	n := len(ratings)
	out := make([]Rating, n)
	if n < 2 {
		copy(out, ratings)
		return out
	}

	// Tau widens every prior before the update (the reference's rate does
	// the same); c² is the total variance of the play.
	variance := make([]float64, n)
	cSq := 0.0
	for i, r := range ratings {
		variance[i] = r.Sigma*r.Sigma + o.Tau*o.Tau
		cSq += variance[i] + o.Beta*o.Beta
	}
	c := math.Sqrt(cSq)

	// The place of player q is decided among everyone ranked at or below q,
	// a choice set whose total strength is Σ exp(mu_j / c). Each set keeps
	// its own greatest mu, top[q], and the log of its strengths scaled by
	// exp(-top[q] / c), logSum[q], so that no exponential overflows on
	// ratings far from the default scale and no quotient becomes 0/0.
	// tied[q] counts the players sharing q's rank, who split that place.
	top := make([]float64, n)
	logSum := make([]float64, n)
	tied := make([]float64, n)
	for q := range n {
		top[q] = math.Inf(-1)
		for j, r := range ratings {
			if ranks[j] >= ranks[q] {
				top[q] = max(top[q], r.Mu)
			}
		}
		sum := 0.0
		for j, r := range ratings {
			if ranks[j] >= ranks[q] {
				sum += math.Exp((r.Mu - top[q]) / c)
			}
			if ranks[j] == ranks[q] {
				tied[q]++
			}
		}
		logSum[q] = math.Log(sum)
	}

	for i, r := range ratings {
		// omega is the gradient of the log-likelihood in mu_i and delta
		// its curvature, both over the places decided at or before i's.
		omega, delta := 0.0, 0.0
		for q := range n {
			if ranks[q] > ranks[i] {
				continue
			}
			// p is the chance that i takes the place decided at q.
			p := math.Exp((r.Mu-top[q])/c - logSum[q])
			if q == i {
				omega += (1 - p) / tied[q]
			} else {
				omega -= p / tied[q]
			}
			delta += p * (1 - p) / tied[q]
		}
		sigma := math.Sqrt(variance[i])
		gamma := sigma / c // the paper's damping of delta
		out[i] = Rating{
			Mu:    r.Mu + variance[i]/c*omega,
			Sigma: sigma * math.Sqrt(max(1-gamma*variance[i]/cSq*delta, o.Kappa)),
		}
	}
	return out
}
