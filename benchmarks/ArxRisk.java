import java.io.*;
import java.nio.charset.StandardCharsets;
import java.util.*;
import org.deidentifier.arx.*;
import org.deidentifier.arx.AttributeType.Hierarchy;
import org.deidentifier.arx.criteria.*;
import org.deidentifier.arx.risk.*;
import org.deidentifier.arx.metric.Metric;

public class ArxRisk {
    static final String[] ALL = {"age","education","marital-status","native-country","occupation","race","salary-class","sex","workclass"};
    static Data load(String dir, String[] qis) throws Exception {
        Data data = Data.create(new File(dir, "adult.csv"), StandardCharsets.UTF_8, ';');
        for (String a : ALL) {
            boolean qi = Arrays.asList(qis).contains(a);
            if (qi) data.getDefinition().setAttributeType(a, Hierarchy.create(new File(dir, "adult_hierarchy_" + a + ".csv"), StandardCharsets.UTF_8, ';'));
            else data.getDefinition().setAttributeType(a, AttributeType.INSENSITIVE_ATTRIBUTE);
        }
        return data;
    }
    static void pop(String label, DataHandle h) {
        System.out.println("## " + label + " rows=" + h.getNumRows());
        for (double f : new double[]{0.001, 0.01, 0.05, 0.1, 0.2, 0.5, 0.9, 1.0}) {
            RiskEstimateBuilder b = h.getRiskEstimator(ARXPopulationModel.create(h.getNumRows(), f));
            RiskModelPopulationUniqueness m = b.getPopulationBasedUniquenessRisk();
            System.out.printf(Locale.ROOT, "pop f=%s N=%d pitman=%.17g zayatz=%.17g snb=%.17g dankar=%.17g model=%s sampleUniqueFrac=%.17g%n",
                f, ARXPopulationModel.create(h.getNumRows(), f).getPopulationSize(),
                m.getNumUniqueTuplesPitman(), m.getNumUniqueTuplesZayatz(), m.getNumUniqueTuplesSNB(),
                m.getNumUniqueTuplesDankar(), m.getPopulationUniquenessModel(),
                b.getSampleBasedUniquenessRisk().getFractionOfUniqueRecords());
        }
        RiskEstimateBuilder b = h.getRiskEstimator(ARXPopulationModel.create(h.getNumRows(), 0.1));
        int[] hist = b.getEquivalenceClassModel().getHistogram();
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < hist.length && i < 40; i += 2) sb.append(hist[i]).append(":").append(hist[i+1]).append(" ");
        System.out.println("hist " + sb + " classes=" + b.getEquivalenceClassModel().getNumClasses());
        summary(b);
    }
    static void summary(RiskEstimateBuilder b) {
        for (double t : new double[]{0.2, 0.05}) {
            RiskModelSampleSummary s = b.getSampleBasedRiskSummary(t);
            System.out.printf(Locale.ROOT, "summary t=%s prosecutor: atRisk=%.17g highest=%.17g success=%.17g avg=%.17g | journalist: atRisk=%.17g highest=%.17g success=%.17g avg=%.17g | marketer=%.17g%n",
                t, s.getProsecutorRisk().getRecordsAtRisk(), s.getProsecutorRisk().getHighestRisk(), s.getProsecutorRisk().getSuccessRate(), s.getProsecutorRisk().getAverageRisk(),
                s.getJournalistRisk().getRecordsAtRisk(), s.getJournalistRisk().getHighestRisk(), s.getJournalistRisk().getSuccessRate(), s.getJournalistRisk().getAverageRisk(),
                s.getMarketerRisk().getSuccessRate());
        }
        RiskModelSampleRisks r = b.getSampleBasedReidentificationRisk();
        System.out.printf(Locale.ROOT, "samplerisks avg=%.17g highest=%.17g lowest=%.17g%n", r.getAverageRisk(), r.getHighestRisk(), r.getLowestRisk());
    }
    public static void main(String[] args) throws Exception {
        String dir = args[0];
        ARXSolverConfiguration c = ARXSolverConfiguration.create();
        System.out.println("solver accuracy=" + ARXSolverConfiguration.getDefaultAccuracy() + " perTry=" + ARXSolverConfiguration.getDefaultIterationsPerTry() + " total=" + ARXSolverConfiguration.getDefaultIterationsTotal() + " deterministic=" + ARXSolverConfiguration.getDefaultDeterministic() + " start=" + Arrays.deepToString(ARXSolverConfiguration.getDefaultStartValues()).substring(0, 200));
        Data all = load(dir, ALL);
        pop("adult all 9 QIs input", all.getHandle());
        String[] four = {"age","sex","race","education"};
        Data d4 = load(dir, four);
        pop("adult age,sex,race,education input", d4.getHandle());
        // 2-anonymity output (TestRiskMetrics setup)
        ARXConfiguration config = ARXConfiguration.create();
        config.addPrivacyModel(new KAnonymity(2));
        config.setSuppressionLimit(0d);
        config.setQualityModel(Metric.createLossMetric(Metric.AggregateFunction.RANK));
        ARXResult res = new ARXAnonymizer().anonymize(all, config);
        System.out.println("2-anon levels " + Arrays.toString(res.getGlobalOptimum().getTransformation()) + " qis(order)=" + res.getGlobalOptimum().getQuasiIdentifyingAttributes());
        pop("adult 2-anon output", res.getOutput(false));
        // journalist: subset of every 10th row, population = all rows, 4 QIs
        Data d4b = load(dir, four);
        Set<Integer> rows = new HashSet<>();
        for (int i = 0; i < d4b.getHandle().getNumRows(); i += 10) rows.add(i);
        DataSubset subset = DataSubset.create(d4b, rows);
        ARXConfiguration c2 = ARXConfiguration.create();
        c2.addPrivacyModel(new KMap(1, subset));
        c2.setSuppressionLimit(0d);
        ARXResult r2 = new ARXAnonymizer().anonymize(d4b, c2);
        System.out.println("kmap levels " + Arrays.toString(r2.getGlobalOptimum().getTransformation()) + " qis=" + r2.getGlobalOptimum().getQuasiIdentifyingAttributes());
        DataHandle view = r2.getOutput(false).getView();
        System.out.println("## subset every 10th row, 4 QIs, rows=" + view.getNumRows());
        summary(view.getRiskEstimator(ARXPopulationModel.create(view.getNumRows(), 0.1)));
    }
}
