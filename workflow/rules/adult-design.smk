# Study adult-design (beyond the five papers): PML mechanisms designed from estimated
# distributions of Adult's categorical attributes, against optimal LDP and randomized response.
# Config section `adult-design` (workflow/schemas/adult-design.schema.yaml); outputs in
# results/adult-design/. Library: leakage.experiments.adult_design (stages, figures, claims).
# Every rule runs for each study of DESIGN_STUDIES ({study}: adult-design, or <name>-design, the
# same study on another data set with its section and results/<name>-design/ folder).
#
# Protocol (adult-design.protocol): split (default) designs on the design part (adult.data) and
# releases the release part (adult.test); same-records designs on and releases every record.
#
# Stages (one rule each, outputs a person can open):
#   0. dataset   data_study        dataset.csv                the dataset.columns and each record's part (dataset.split)
#   1. estimate  estimate_priors      priors.csv                 P̂ of every attribute (design part)
#                                     release_histogram.csv      the released records' histogram (the truth)
#   2. design    design_attribute   design/<attribute>.csv     one job per attribute (parallel,
#                                          design/<attribute>_mi.csv  cluster-ready); fig2's curve
#                design_gather  mechanisms.csv             gathered (cheap, local)
#                design_mse_attribute design/<attribute>_mse.csv  pml_mse, ldp_mse (estimation-optimal), per attribute
#   3. release   release_attribute     release/<attribute>.csv    column privatized by pml at release.eps
#      estimate  estimate_release      estimates/<attribute>.csv  the histogram an analyst estimates from the release
#      frequency experiment_frequency   frequency/<attribute>.csv  MSE/coverage over repeated releases, all methods
#                experiment_frequency_gather      frequency.csv              gathered (fig5's table)
#      Monte Carlo experiment_monte_carlo        mc/<attribute>.csv         per MC attribute, per iteration
#   4. evaluate  the generic table -> plot -> claims rules (figures.smk):
#
# Figure index (figure -> function in leakage.experiments.adult_design -> what it shows):
#   fig1 -> fig1: empirical MI (67) between m true and released values vs m, MC attributes, eps = mc.eps
#   fig2 -> fig2: exact I(X;Y) under the design part's P̂ vs eps, every attribute and method
#   fig3 -> fig3: designed mechanisms as heatmaps (heatmap.attribute at heatmap.eps, pml | ldp)
#   fig4 -> fig4: exact I(X;Y) of the exact optimum (pml) vs route (44) (pml_prop2) vs m
#   fig5 -> fig5: MSE of the estimated histogram vs eps per attribute, every method (frequency.csv)
#   fig6 -> fig6: one release of frequency.histogram_attribute, estimate and 95 % intervals vs truth
#   claims.csv -> check_claims: orderings, guarantees verified without the engine, gain vs m, fig2 vs mechanisms.csv
for _s in DESIGN_STUDIES:
    _res = f"results/{_s}"
    FIGURES[_s] = ["fig1", "fig2", "fig3", "fig4", "fig5", "fig6"]
    FIGURE_INPUTS[(_s, "fig1")] = {f"mc_{a}": f"{_res}/mc/{a}.csv" for a in config[_s]["mc_attributes"]}
    FIGURE_INPUTS[(_s, "fig4")] = FIGURE_INPUTS[(_s, "fig1")]
    FIGURE_INPUTS[(_s, "fig2")] = {f"curve_{a}": f"{_res}/design/{a}_mi.csv" for a in _attributes(_s)}
    FIGURE_INPUTS[(_s, "fig3")] = {"priors": f"{_res}/priors.csv", "mechanisms": f"{_res}/mechanisms.csv"}
    FIGURE_INPUTS[(_s, "fig5")] = {f"frequency_{a}": f"{_res}/frequency/{a}.csv" for a in _attributes(_s)}
    FIGURE_INPUTS[(_s, "fig6")] = {
        "priors": f"{_res}/release_histogram.csv",  # the released records' counts
        "mechanisms": f"{_res}/mechanisms.csv",
    }
    CLAIMS_INPUTS[_s] = FIGURE_INPUTS[(_s, "fig3")]
    EXTRA_TARGETS[_s] = [
        f"{_res}/priors.csv",
        f"{_res}/release_histogram.csv",
        f"{_res}/mechanisms.csv",
        f"{_res}/frequency.csv",
    ] + [f"{_res}/release/{a}.csv" for a in _attributes(_s)] + [f"{_res}/estimates/{a}.csv" for a in _attributes(_s)]


wildcard_constraints:
    study="|".join(_re.escape(s) for s in DESIGN_STUDIES),
    attribute="|".join(sorted({_re.escape(a) for s in DESIGN_STUDIES for a in _attributes(s)})),


localrules:
    design_gather,
    experiment_frequency_gather,


rule data_study:
    input:
        unpack(_dataset_inputs),
    output:
        dataset="results/{study}/dataset.csv",
    params:
        settings=_ad("dataset"),
        seed=config["seed"],
    resources:
        mem_mb=1000,
        runtime=5,
    log:
        "logs/{study}/dataset.log",
    benchmark:
        "benchmarks/{study}/dataset.tsv"
    conda:
        ENV
    script:
        "../scripts/adult_design_dataset.py"


rule estimate_priors:
    input:
        dataset="results/{study}/dataset.csv",
        code=script_code("adult_design_priors.py"),
    output:
        priors="results/{study}/priors.csv",
        release="results/{study}/release_histogram.csv",
    params:
        settings=_ad("attributes", "protocol"),
    resources:
        mem_mb=1000,
        runtime=5,
    log:
        "logs/{study}/priors.log",
    benchmark:
        "benchmarks/{study}/priors.tsv"
    conda:
        ENV
    script:
        "../scripts/adult_design_priors.py"


rule design_attribute:
    input:
        priors="results/{study}/priors.csv",
        code=script_code("adult_design_attribute.py"),
    output:
        mechanisms="results/{study}/design/{attribute}.csv",
        curve="results/{study}/design/{attribute}_mi.csv",
    params:
        settings=_ad("eps", "delta", "methods", "curve", "engine"),
    resources:
        mem_mb=2000,
        runtime=30,
    log:
        "logs/{study}/{attribute}_design.log",
    benchmark:
        "benchmarks/{study}/{attribute}_design.tsv"
    conda:
        ENV
    script:
        "../scripts/adult_design_attribute.py"


rule design_mse_attribute:
    input:
        priors="results/{study}/priors.csv",
        mechanisms="results/{study}/design/{attribute}.csv",
        code=script_code("adult_design_mse.py"),
    output:
        mechanisms="results/{study}/design/{attribute}_mse.csv",
    params:
        settings=_ad("eps", "delta", "engine", "frequency"),
    # beyond 18 letters the relaxed dual's points are computed on a second core beside the column
    # generation (leakage.design.pricing.lifted.RelaxedDualsAhead)
    threads: 2
    resources:
        mem_mb=2000,
        runtime=10,
    log:
        "logs/{study}/{attribute}_mse.log",
    benchmark:
        "benchmarks/{study}/{attribute}_mse.tsv"
    conda:
        ENV
    script:
        "../scripts/adult_design_mse.py"


rule design_gather:
    input:
        parts=lambda wildcards: expand(
            "results/{study}/design/{attribute}{part}.csv",
            study=wildcards.study,
            attribute=_attributes(wildcards.study),
            part=["", "_mse"],
        ),
    output:
        mechanisms="results/{study}/mechanisms.csv",
    resources:
        mem_mb=500,
        runtime=5,
    log:
        "logs/{study}/mechanisms.log",
    benchmark:
        "benchmarks/{study}/mechanisms.tsv"
    conda:
        ENV
    script:
        "../scripts/adult_design_gather.py"


rule release_attribute:
    input:
        dataset="results/{study}/dataset.csv",
        priors="results/{study}/priors.csv",
        mechanisms="results/{study}/design/{attribute}.csv",
        code=script_code("adult_design_release.py"),
    output:
        release="results/{study}/release/{attribute}.csv",
    params:
        settings=_ad("eps", "release", "protocol"),
        seed=config["seed"],
    resources:
        mem_mb=1000,
        runtime=5,
    log:
        "logs/{study}/{attribute}_release.log",
    benchmark:
        "benchmarks/{study}/{attribute}_release.tsv"
    conda:
        ENV
    script:
        "../scripts/adult_design_release.py"


rule experiment_monte_carlo:
    input:
        dataset="results/{study}/dataset.csv",
        code=script_code("adult_design_mc.py"),
    output:
        mc="results/{study}/mc/{attribute}.csv",
    params:
        settings=_ad("delta", "methods", "mc", "protocol"),
        seed=config["seed"],
    resources:
        mem_mb=2000,
        runtime=60,
    log:
        "logs/{study}/{attribute}_mc.log",
    benchmark:
        "benchmarks/{study}/{attribute}_mc.tsv"
    conda:
        ENV
    script:
        "../scripts/adult_design_mc.py"


rule estimate_release:
    input:
        release="results/{study}/release/{attribute}.csv",
        mechanisms="results/{study}/design/{attribute}.csv",
        priors="results/{study}/release_histogram.csv",  # the truth beside the estimate
        code=script_code("adult_design_estimates.py"),
    output:
        estimates="results/{study}/estimates/{attribute}.csv",
    params:
        settings=_ad("release"),
    resources:
        mem_mb=1000,
        runtime=5,
    log:
        "logs/{study}/{attribute}_estimates.log",
    benchmark:
        "benchmarks/{study}/{attribute}_estimates.tsv"
    conda:
        ENV
    script:
        "../scripts/adult_design_estimates.py"


rule experiment_frequency:
    input:
        priors="results/{study}/release_histogram.csv",  # the released records' counts
        mechanisms="results/{study}/design/{attribute}.csv",
        mse="results/{study}/design/{attribute}_mse.csv",
        code=script_code("adult_design_frequency.py"),
    output:
        frequency="results/{study}/frequency/{attribute}.csv",
    params:
        settings=_ad("eps", "frequency"),
        seed=config["seed"],
    resources:
        mem_mb=2000,
        runtime=10,
    log:
        "logs/{study}/{attribute}_frequency.log",
    benchmark:
        "benchmarks/{study}/{attribute}_frequency.tsv"
    conda:
        ENV
    script:
        "../scripts/adult_design_frequency.py"


rule experiment_frequency_gather:
    input:
        parts=lambda wildcards: expand(
            "results/{study}/frequency/{attribute}.csv", study=wildcards.study, attribute=_attributes(wildcards.study)
        ),
    output:
        frequency="results/{study}/frequency.csv",
    resources:
        mem_mb=500,
        runtime=5,
    log:
        "logs/{study}/frequency.log",
    benchmark:
        "benchmarks/{study}/frequency.tsv"
    conda:
        ENV
    script:
        "../scripts/adult_design_gather.py"
