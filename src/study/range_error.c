/* range_error.c: the error of an estimate form over the calibrated range, from its errors at the
 * baseline and at the left-out runs (calibrate.c chooses the model's form, its phases and the
 * anchoring by it; docs/estimator.md, "`gpuest run` after the fit scouting (sixth session)").
 *
 * Why not the left-out runs alone: the excitation runs are the ends of the calibrated range (flit
 * width x0.5 and x2, L2 latency x2), and the estimates a calibration is used for lie between the
 * baseline and those ends (a point outside is flagged as extrapolated): the machine as given, a
 * technique on it, a moderate change of one field. A form's error there depends on its error at
 * the baseline as much as at the ends. The left-out RMS cannot see the baseline: on `gpuest run`'s
 * sampled calibration after the fit scouting the plain model missed the sampled baseline by -6.25 %
 * (3.7 of its standard errors) and still won on the three ends (5.3 against 7.4 %), where its level
 * error happened to offset a response error.
 *
 * The rule: a design point is taken as equally likely anywhere on the segment from the baseline to
 * each left-out run, and a form's relative error along a segment as linear between its ends, e_b at
 * the baseline and e_k at run k. The mean squared error over the segment is then
 *     integral_0^1 ((1 - s) e_b + s e_k)^2 ds = (e_b^2 + e_b e_k + e_k^2) / 3,
 * and the range error is the square root of its mean over the left-out runs. For the plain model
 * e_b is the refit's (the one without run k) miss of the measured baseline, e_k its miss of run k;
 * for the anchored form e_b = 0 (it estimates the calibrated machine as measured) and e_k its
 * left-out error. Both forms' errors are against the measured runs, as the left-out RMS was. To
 * first order (the anchored error is e_k - e_b) the anchored form wins when the plain model's miss
 * at the baseline has the sign of its mean miss at the ends; the left-out RMS alone anchored only
 * when that mean exceeded half the baseline's miss. */
#include <math.h>

#include "study/study.h"

double gpuest_study_range_error(const double *at_base, const double *at_run, int n)
{
    if (n <= 0)
        return 0.0;
    double s = 0.0;
    for (int k = 0; k < n; k++) {
        double b = at_base ? at_base[k] : 0.0, r = at_run[k];
        s += (b * b + b * r + r * r) / 3.0;
    }
    return sqrt(s / n);
}
